import SwitchboardFuzzChecks
import SwitchboardFuzzDriver

FuzzTarget.appSyncCodec.runFuzzer()
