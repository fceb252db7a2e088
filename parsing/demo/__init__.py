"""The demo property's floors computed and drawn as unit-map SVGs (rooms, doors, walk
paths; floor plates, buildings, the stack): pure, the dataset and the files are
`storage/demo/install.py`'s."""
