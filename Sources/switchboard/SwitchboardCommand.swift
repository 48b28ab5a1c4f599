import ArgumentParser

/// `switchboard`: the command-line tool for app developers and ops. It only wires the library.
@main
struct SwitchboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "Run, watch and test Switchboard's real-time backend events.",
        discussion: """
            The transport is chosen by --transport, else the SWITCHBOARD_TRANSPORT environment \
            variable, else the "transport" key of --config FILE, else appsync.
            """,
        version: "0.1.0",
        subcommands: [DemoCommand.self, ServeCommand.self, ListenCommand.self, PublishCommand.self, FaultCommand.self,
                      SchemaCommand.self, ReplayCommand.self, ParityCommand.self, SyncCommand.self, SoakCommand.self,
                      CheckCommand.self, ShadowCommand.self]
    )
}
