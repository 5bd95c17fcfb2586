"""What BibTeX and biblatex mean: types, values, names, keys, inheritance, the record."""
