import SwitchboardFuzzChecks
import SwitchboardFuzzDriver

FuzzTarget.models.runFuzzer()
