import Foundation
import Switchboard

/// `swift run switchboard-example [--transport appsync|graphql]`: a consumer app on both API
/// generations, against the local emulator. Exits 0 once every event reached both generations.
///
/// The transport comes from `--transport`, else `SWITCHBOARD_TRANSPORT`, else AppSync Events,
/// resolved by `TransportSelection` as an app would resolve it from its configuration.
@main
struct SwitchboardExample {
    static let usage = """
        usage: switchboard-example [--transport appsync|graphql]
          Runs a consumer app against the local emulator on both API generations and prints what
          each stream receives. Without --transport, SWITCHBOARD_TRANSPORT decides (default: appsync).
        """

    static func main() async {
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.contains("--help") || arguments.contains("-h") {
                print(usage)
                return
            }
            let selection = try TransportSelection.resolve(code: try transportFlag(arguments))
            print("Switchboard example: transport \(selection)")
            let updates = try await ExampleRun.run(selection: selection) { print($0) }
            print("")
            for generation in AppUpdate.Generation.allCases {
                let methods = updates.compactMap { update -> String? in
                    guard case .event(generation, let method, _) = update else { return nil }
                    return method
                }
                print("\(generation.rawValue): \(methods.count) events on \(Set(methods).count) streams")
            }
        } catch {
            FileHandle.standardError.write(Data("switchboard-example: \(error)\n\n\(usage)\n".utf8))
            exit(1)
        }
    }

    /// The value of `--transport`, if given.
    static func transportFlag(_ arguments: [String]) throws -> TransportKind? {
        guard let index = arguments.firstIndex(of: "--transport") else { return nil }
        guard index + 1 < arguments.count else {
            throw SwitchboardError(code: .invalidConfiguration, message: "--transport needs a value (appsync or graphql)")
        }
        return try TransportSelection.parse(arguments[index + 1], key: "--transport")
    }
}
