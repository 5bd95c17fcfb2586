from pubcli.cli import main

main()
