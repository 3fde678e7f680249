"""The core every game family and every face stands on: cards and evaluators, the
rule-set base model and loader (strict, fingerprinted), the hand state machine and its
actions, settlement, the payout calculator's JSON form, the game-family protocol and its
registry, and the types the families' solvers and kernels return."""
