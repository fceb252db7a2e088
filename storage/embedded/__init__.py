"""The embedded database server (`secantusd-py` as a child process) and which database a command
talks to.
"""
