"""Stand-ins for numba.cuda and cupy that let GPU scripts run unchanged on the simulator."""
