/// How one version of the event contract differs from another.
///
/// The *reference* is the version you trust (the bundled document, usually); the *candidate*
/// is the one you check. A finding is **missing** when the reference has something the
/// candidate lacks, **extra** when the candidate has something the reference lacks, and
/// **changed** when both have it with a different type, format, requiredness, enum values,
/// bounds or channel. Descriptions, examples, key order and schema names are not compared.
public struct ContractDrift: Hashable, Sendable {
    /// The findings: events in the reference's order, then extra events; fields depth first.
    public var findings: [Finding]
    /// How many events the two versions have in common.
    public var commonEventCount: Int
    /// How many fields (nested ones included) the common events have in both versions.
    public var commonFieldCount: Int

    /// Compares two versions.
    /// - Parameters:
    ///   - reference: The version you trust.
    ///   - candidate: The version you check.
    public init(reference: EventContract, candidate: EventContract) {
        var comparison = Comparison()
        for event in reference.events {
            guard let other = candidate[event.eventType] else {
                comparison.add(.missingEvent, event.eventType, nil, reference: "schema \(event.schemaName)", candidate: nil)
                continue
            }
            comparison.events += 1
            if event.channel != other.channel {
                comparison.add(
                    .changedChannel, event.eventType, nil,
                    reference: event.channel ?? "none", candidate: other.channel ?? "none")
            }
            comparison.compare(event.fields, other.fields, eventType: event.eventType, prefix: nil)
        }
        for event in candidate.events where reference[event.eventType] == nil {
            comparison.add(.extraEvent, event.eventType, nil, reference: nil, candidate: "schema \(event.schemaName)")
        }
        findings = comparison.findings
        commonEventCount = comparison.events
        commonFieldCount = comparison.fields
    }

    /// Whether the two versions say the same about every payload.
    public var isEmpty: Bool { findings.isEmpty }

    /// How many findings fall in a category.
    /// - Parameter category: Missing, extra or changed.
    public func count(_ category: Finding.Category) -> Int {
        findings.filter { $0.kind.category == category }.count
    }

    /// One line: `no drift: 9 events, 58 fields` or
    /// `drift: 3 findings (1 missing, 1 extra, 1 changed) in 2 events`.
    public var summary: String {
        guard !isEmpty else {
            return "no drift: \(commonEventCount) events and \(commonFieldCount) fields match"
        }
        let events = Set(findings.map(\.eventType)).count
        let counts = Finding.Category.allCases.map { "\(count($0)) \($0.rawValue)" }.joined(separator: ", ")
        return "drift: \(findings.count) finding\(findings.count == 1 ? "" : "s") (\(counts)) in \(events) event\(events == 1 ? "" : "s")"
    }

    /// Walks two versions' fields and collects findings.
    private struct Comparison {
        var findings: [Finding] = []
        var events = 0
        var fields = 0

        mutating func add(
            _ kind: Finding.Kind, _ eventType: String, _ path: String?, reference: String?, candidate: String?,
            detail: String? = nil
        ) {
            findings.append(Finding(
                kind: kind, eventType: eventType, path: path, reference: reference, candidate: candidate, detail: detail))
        }

        mutating func compare(_ reference: [EventContract.Field], _ candidate: [EventContract.Field], eventType: String, prefix: String?) {
            for field in reference {
                let path = prefix.map { "\($0).\(field.name)" } ?? field.name
                guard let other = candidate.first(where: { $0.name == field.name }) else {
                    add(.missingField, eventType, path, reference: field.shape, candidate: nil)
                    continue
                }
                compare(field, other, eventType: eventType, path: path)
            }
            for field in candidate where !reference.contains(where: { $0.name == field.name }) {
                let path = prefix.map { "\($0).\(field.name)" } ?? field.name
                add(.extraField, eventType, path, reference: nil, candidate: field.shape)
            }
        }

        mutating func compare(_ field: EventContract.Field, _ other: EventContract.Field, eventType: String, path: String) {
            fields += 1
            if field.type != other.type || field.isNullable != other.isNullable {
                // The rest of the shape means something else under another type.
                add(.changedType, eventType, path, reference: field.typeText, candidate: other.typeText)
                return
            }
            if field.format != other.format {
                add(.changedFormat, eventType, path, reference: field.format ?? "none", candidate: other.format ?? "none")
            }
            if field.isRequired != other.isRequired {
                add(.changedRequired, eventType, path,
                    reference: field.isRequired ? "required" : "optional", candidate: other.isRequired ? "required" : "optional")
            }
            if Set(field.enumValues ?? []) != Set(other.enumValues ?? []) || (field.enumValues == nil) != (other.enumValues == nil) {
                add(.changedEnumValues, eventType, path, reference: Self.values(field.enumValues),
                    candidate: Self.values(other.enumValues), detail: Self.difference(field.enumValues, other.enumValues))
            }
            if field.minimum != other.minimum || field.maximum != other.maximum {
                add(.changedBounds, eventType, path, reference: field.rangeText ?? "none", candidate: other.rangeText ?? "none")
            }
            compare(field.fields, other.fields, eventType: eventType, prefix: path)
            switch (field.items, other.items) {
            case let (items?, otherItems?):
                compare(items, otherItems, eventType: eventType, path: path + "[]")
            case let (items?, nil):
                add(.missingField, eventType, path + "[]", reference: items.shape, candidate: nil)
            case let (nil, otherItems?):
                add(.extraField, eventType, path + "[]", reference: nil, candidate: otherItems.shape)
            case (nil, nil):
                break
            }
        }

        static func values(_ values: [String]?) -> String {
            values.map { "[\($0.joined(separator: ", "))]" } ?? "any value"
        }

        /// `removed A, B; added C`, when both versions list values.
        static func difference(_ old: [String]?, _ new: [String]?) -> String? {
            guard let old, let new else { return nil }
            let removed = old.filter { !new.contains($0) }
            let added = new.filter { !old.contains($0) }
            var parts: [String] = []
            if !removed.isEmpty { parts.append("removed \(removed.joined(separator: ", "))") }
            if !added.isEmpty { parts.append("added \(added.joined(separator: ", "))") }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        }
    }
}
