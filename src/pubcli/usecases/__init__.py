"""What the commands decide: adding, importing, editing, areas, checks, fmt, completion."""
