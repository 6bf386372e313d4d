"""The simulated board: thermal RC plant, DVFS domains, sensors, inference workload, the world and its run loop."""
