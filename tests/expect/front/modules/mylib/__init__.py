# The package of mylib/acts.py (a module of the test's own project, found
# from the kernel's folder).
