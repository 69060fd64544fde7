import sys
from pathlib import Path

# tests/reference.py: the plain brute-force rules used by differential tests.
sys.path.insert(0, str(Path(__file__).parent))
