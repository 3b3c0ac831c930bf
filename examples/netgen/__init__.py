# Owns the netgen package surface: networks described by layer shapes,
# turned into usmp problems (examples/ and bench/workloads/ use it).
"""netgen: realistic usmp problems from network layer shapes (stdlib only)."""

from .graph import (Tensor, Graph, problem_lower_bounds, write_json,
                    dumps_problem, prod)
from . import nets, train, problems
