# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/bytes_literal.py:4:9: error: bytes literals are not supported
# a bytes literal
MAGIC = b"loom"
