import SwitchboardCore

extension SwitchboardError {
    /// `error` itself when it is a ``SwitchboardError``, otherwise one of `code` describing it.
    static func wrapping(_ error: any Error, code: Code) -> SwitchboardError {
        if let error = error as? SwitchboardError { return error }
        return SwitchboardError(code: code, message: "\(error)")
    }
}
