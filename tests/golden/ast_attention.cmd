ast tests/unit/data/attention.py
