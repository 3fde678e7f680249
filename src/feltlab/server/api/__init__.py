"""API v1, one router per resource."""
