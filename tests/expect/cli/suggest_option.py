# A mistyped option gets the closest of the command's options.
# RUN: loomc run %s --chekc
# EXIT: 1
# EXPECT: loomc run: error: unknown option '--chekc' (did you mean '--check'?)
