extension ContractDrift {
    /// One difference between the reference and the candidate.
    public struct Finding: Hashable, Sendable, CustomStringConvertible {
        /// Whether something is missing from the candidate, extra in it, or changed.
        public enum Category: String, Hashable, Sendable, CaseIterable {
            /// The reference has it; the candidate does not.
            case missing
            /// The candidate has it; the reference does not.
            case extra
            /// Both have it, differently.
            case changed
        }

        /// What differs.
        public struct Kind: Hashable, Sendable, CustomStringConvertible {
            private enum Value: String, Hashable, Sendable {
                case missingEvent, extraEvent, missingField, extraField
                case changedType, changedFormat, changedRequired, changedEnumValues, changedBounds, changedChannel
            }

            private let value: Value

            /// An event the candidate lacks.
            public static let missingEvent = Kind(value: .missingEvent)
            /// An event only the candidate has.
            public static let extraEvent = Kind(value: .extraEvent)
            /// A field the candidate lacks.
            public static let missingField = Kind(value: .missingField)
            /// A field only the candidate has.
            public static let extraField = Kind(value: .extraField)
            /// A field's JSON type (or nullability) differs.
            public static let changedType = Kind(value: .changedType)
            /// A field's `format` differs.
            public static let changedFormat = Kind(value: .changedFormat)
            /// A field is required in one version and optional in the other.
            public static let changedRequired = Kind(value: .changedRequired)
            /// A field's allowed values differ.
            public static let changedEnumValues = Kind(value: .changedEnumValues)
            /// A number's or integer's bounds differ.
            public static let changedBounds = Kind(value: .changedBounds)
            /// The channel that carries an event differs.
            public static let changedChannel = Kind(value: .changedChannel)

            /// Missing, extra or changed.
            public var category: Category {
                switch value {
                case .missingEvent, .missingField: .missing
                case .extraEvent, .extraField: .extra
                default: .changed
                }
            }

            /// The kind's name, such as `changedEnumValues`.
            public var description: String { value.rawValue }

            /// What a changed finding is about: `type`, `enum values`, …; nil for missing and extra.
            var aspect: String? {
                switch value {
                case .changedType: "type"
                case .changedFormat: "format"
                case .changedRequired: "required"
                case .changedEnumValues: "enum values"
                case .changedBounds: "bounds"
                case .changedChannel: "channel"
                default: nil
                }
            }
        }

        /// What differs.
        public var kind: Kind
        /// The event it is in.
        public var eventType: String
        /// The field, as a path such as `aiControlSetting.options[].key`; nil for a whole event
        /// or its channel.
        public var path: String?
        /// What the reference says, as text; nil when it lacks the thing.
        public var reference: String?
        /// What the candidate says, as text; nil when it lacks the thing.
        public var candidate: String?
        /// More about a change, such as `removed Ready; added Done` for enum values.
        public var detail: String?

        /// Creates a finding.
        /// - Parameters:
        ///   - kind: What differs.
        ///   - eventType: The event it is in.
        ///   - path: The field, if the finding is about one.
        ///   - reference: What the reference says.
        ///   - candidate: What the candidate says.
        ///   - detail: More about a change.
        public init(
            kind: Kind, eventType: String, path: String?, reference: String?, candidate: String?, detail: String? = nil
        ) {
            self.kind = kind
            self.eventType = eventType
            self.path = path
            self.reference = reference
            self.candidate = candidate
            self.detail = detail
        }

        /// One line for people, starting with the category:
        /// - `missing archive/stateChanged videoSize (integer (int64), optional): not in the candidate`
        /// - `extra user/roleChanged actor (string, optional): only in the candidate`
        /// - `changed archive/stateChanged status: enum values [Pending, Ready] → [Pending, Done] (removed Ready; added Done)`
        public var description: String {
            let subject = path.map { "\(eventType) \($0)" } ?? eventType
            let category = kind.category.rawValue
            switch kind.category {
            case .missing:
                let what = path == nil ? "the event (\(reference ?? "?"))" : "(\(reference ?? "?"))"
                return "\(category) \(subject) \(what): not in the candidate"
            case .extra:
                let what = path == nil ? "the event (\(candidate ?? "?"))" : "(\(candidate ?? "?"))"
                return "\(category) \(subject) \(what): only in the candidate"
            case .changed:
                var line = "\(category) \(subject): \(kind.aspect ?? "\(kind)") \(reference ?? "none") → \(candidate ?? "none")"
                if let detail { line += " (\(detail))" }
                return line
            }
        }
    }
}
