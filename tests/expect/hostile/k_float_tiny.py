# RUN: loomc ast %s
# EXIT: 0
# STDOUT: (float 0
# a float literal below the smallest double becomes 0, as in Python
x = 1e-400
