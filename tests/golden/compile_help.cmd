compile --help
