ast --help
