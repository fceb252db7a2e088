"""The demo property's floors computed and drawn as unit-map SVGs (rooms, doors, walk
paths; floor plates, buildings, the stack): pure, written and imported by the storage
floor's demo wing."""
