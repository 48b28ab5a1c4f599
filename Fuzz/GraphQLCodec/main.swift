import SwitchboardFuzzChecks
import SwitchboardFuzzDriver

FuzzTarget.graphQLCodec.runFuzzer()
