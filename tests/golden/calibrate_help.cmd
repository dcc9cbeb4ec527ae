calibrate --help
