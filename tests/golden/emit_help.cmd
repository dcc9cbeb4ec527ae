emit --help
