// Apps import `Switchboard` only; the transport-facing types of SwitchboardCore come with it.
@_exported import SwitchboardCore
