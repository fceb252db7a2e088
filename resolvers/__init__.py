"""The logic behind both faces: access checks, paging, reads, loaders, key management."""
