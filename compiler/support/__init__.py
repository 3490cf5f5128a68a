"""What every stage may lean on and none owns: the user's files as text, cache folders, and two
helpers of the compiler's recursive walks (stack room, the cyclic collector paused)."""
