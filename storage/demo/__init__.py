"""The demo property (`floorgate demo`, `make run`): its dataset, written to disk and
imported; its drawings are drawn in `parsing/demo/`."""
