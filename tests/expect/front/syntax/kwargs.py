# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/kwargs.py:5:15: error: '**options' parameters are not supported
# a '**kwargs' parameter
@loomc.launch
def run(M, N, **options):
    pass
