"""This machine: where the library and pubcli's files are, the owner's settings, process policy."""
