// The support modules of the templates (none needed by join.v here).
