"""The demo property (`floorgate demo`, `make run`): its dataset and its drawings."""
