# RUN: loomc ir --help
# EXIT: 0
# STDOUT: usage: loomc ir KERNEL.py --shape NAME=N[,NAME=N...] [--const NAME=N]... [--kernel NAME]
# the help text of 'loomc ir'
