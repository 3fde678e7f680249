from feltlab.cli import main

main()
