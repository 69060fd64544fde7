"""What every game shares: board geometry, argument checks, the position frame, the batched-engine
frame, the AEC mechanics, records and drawing. Imports no game; games build on it."""
