"""The suite's own machinery: what makes a run fail rather than hang (`hangs`)."""
