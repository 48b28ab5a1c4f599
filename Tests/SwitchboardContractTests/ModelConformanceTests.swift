import Foundation
import Switchboard
import SwitchboardContract
import SwitchboardCore
import Testing

/// The Swift models against the bundled OpenAPI document, property by property.
///
/// The Swift side is read from the models themselves: the stream catalog says which model an
/// `eventType` decodes into, `Mirror` lists the model's stored properties and their types,
/// `knownFieldNames` the wire names its decoder reads, `knownCases` the enum values it knows,
/// and decoding and re-encoding payloads made from the spec shows where each value lands.
@Suite("Models against the bundled OpenAPI document")
struct ModelConformanceTests {
    /// Required on the AppSync wire but `Optional` in the models: the models are shared with
    /// the legacy GraphQL transport, whose payloads carry neither (contract §4). The notifier
    /// refuses an AppSync payload without `eventType` before any model sees it.
    static let legacySharedHeader: Set<String> = ["eventType", "timestamp"]

    static let eventTypes = ContractFixtures.catalogEventTypes

    @Test("the spec has one event per catalog eventType, on the catalog's channel")
    func eventsAndChannels() throws {
        let contract = ContractFixtures.contract
        #expect(contract.eventTypes.sorted() == Self.eventTypes)
        #expect(Self.eventTypes.count == 9)
        let namespace = BackendNotifier.Configuration().namespace
        for stream in ContractFixtures.singleEventStreams {
            let eventType = try #require(stream.eventTypes.first)
            #expect(contract[eventType]?.channel == "\(namespace)/user/{userId}/\(stream.channel)", "\(eventType)")
        }
    }

    @Test("the model's stored properties are the spec's fields; any other name it reads is a legacy alias",
          arguments: eventTypes)
    func fieldNames(eventType: String) throws {
        let event = try ContractFixtures.event(eventType)
        let type = ContractFixtures.model(for: eventType)
        let specNames = Set(event.fields.map(\.name))
        let model = try ContractFixtures.decode(type, ContractFixtures.full(event.fields))
        let swiftNames = Set(SwiftField.fields(of: model).map(\.name))
        #expect(swiftNames.subtracting(specNames).isEmpty, "\(eventType): model properties not in the spec")
        #expect(specNames.subtracting(swiftNames).isEmpty, "\(eventType): spec fields with no model property")

        let known = type.knownFieldNames
        #expect(specNames.subtracting(known).isEmpty, "\(eventType): spec fields the decoder would log as unknown")
        // Every other name the decoder reads must feed a spec field exactly as that field's own name does.
        let base = ContractFixtures.minimal(event.fields)
        for alias in known.subtracting(specNames).sorted() {
            let target = event.fields.filter { !$0.isRequired }.first { field in
                let value = ContractFixtures.sample(field)
                guard let viaAlias = try? ContractFixtures.encode(ContractFixtures.decode(type, base.setting(alias, to: value))),
                      let viaName = try? ContractFixtures.encode(ContractFixtures.decode(type, base.setting(field.name, to: value)))
                else { return false }
                return viaName[field.name] == value && viaAlias == viaName
            }
            #expect(target != nil, "\(eventType): the decoder reads '\(alias)', which is neither in the spec nor an alias of a spec field")
        }
    }

    @Test("each field's JSON type, format, requiredness and enum values match the model's Swift property",
          arguments: eventTypes)
    func types(eventType: String) throws {
        let event = try ContractFixtures.event(eventType)
        let model = try ContractFixtures.decode(ContractFixtures.model(for: eventType), ContractFixtures.full(event.fields))
        Self.check(event.fields, against: SwiftField.fields(of: model), at: eventType, header: Self.legacySharedHeader)
    }

    @Test("a valid value of every field decodes into the model and is written back unchanged", arguments: eventTypes)
    func valuesLand(eventType: String) throws {
        let event = try ContractFixtures.event(eventType)
        let type = ContractFixtures.model(for: eventType)
        let full = ContractFixtures.full(event.fields)
        #expect(try ContractFixtures.encode(ContractFixtures.decode(type, full)) == full)

        let minimal = ContractFixtures.minimal(event.fields)
        for field in event.fields where !field.isRequired {
            let value = ContractFixtures.sample(field)
            let model = try ContractFixtures.decode(type, minimal.setting(field.name, to: value))
            #expect(ContractFixtures.swiftField(of: model, at: [field.name])?.value != nil, "\(eventType) \(field.name) did not land")
            #expect(try ContractFixtures.encode(model)[field.name] == value, "\(eventType) \(field.name)")
        }
    }

    @Test("omitting (or nulling) an optional field decodes to nil; omitting a required one fails the event",
          arguments: eventTypes)
    func omissions(eventType: String) throws {
        let event = try ContractFixtures.event(eventType)
        let type = ContractFixtures.model(for: eventType)
        let full = ContractFixtures.full(event.fields)
        for (path, field) in ContractFixtures.allFields(event.fields) where path.last != "[]" {
            let name = "\(eventType) \(path.joined(separator: "."))"
            for payload in [full.setting(path: path, to: nil), full.setting(path: path, to: .null)] {
                if field.isRequired, !(path.count == 1 && Self.legacySharedHeader.contains(field.name)) {
                    #expect(throws: SwitchboardError.self, "\(name) is required but a payload without it decoded") {
                        _ = try ContractFixtures.decode(type, payload)
                    }
                } else {
                    do {
                        let model = try ContractFixtures.decode(type, payload)
                        let property = ContractFixtures.swiftField(of: model, at: path)
                        #expect(property != nil && property?.value == nil, "\(name) should decode to nil when absent")
                    } catch {
                        Issue.record("\(name) is optional but a payload without it failed: \(error)")
                    }
                }
            }
        }
    }

    @Test("a value of the wrong JSON type fails the event instead of being dropped silently", arguments: eventTypes)
    func wrongTypes(eventType: String) throws {
        let event = try ContractFixtures.event(eventType)
        let type = ContractFixtures.model(for: eventType)
        let full = ContractFixtures.full(event.fields)
        for (path, field) in ContractFixtures.allFields(event.fields) {
            let wrong = ContractFixtures.wrongType(field)
            #expect(throws: SwitchboardError.self, "\(eventType) \(path.joined(separator: ".")): \(wrong) accepted for \(field.type)") {
                _ = try ContractFixtures.decode(type, full.setting(path: path, to: wrong))
            }
        }
    }

    @Test("integers refuse fractions and keep values outside the bounds; date-times refuse other text",
          arguments: eventTypes)
    func numbersAndDates(eventType: String) throws {
        let event = try ContractFixtures.event(eventType)
        let type = ContractFixtures.model(for: eventType)
        let full = ContractFixtures.full(event.fields)
        for (path, field) in ContractFixtures.allFields(event.fields) {
            let name = "\(eventType) \(path.joined(separator: "."))"
            if field.type == .integer {
                #expect(throws: SwitchboardError.self, "\(name): 7.5 accepted") {
                    _ = try ContractFixtures.decode(type, full.setting(path: path, to: .number(7.5)))
                }
                for bound in [field.maximum.map { Int64($0.value) + 1 }, field.minimum.map { Int64($0.value) - 1 }] {
                    guard let bound else { continue }
                    let model = try ContractFixtures.decode(type, full.setting(path: path, to: .integer(bound)))
                    #expect(try ContractFixtures.encode(model).value(at: path) == .integer(bound), "\(name): \(bound) is kept as sent")
                }
            }
            if field.format == "date-time" {
                #expect(throws: SwitchboardError.self, "\(name): non-date text accepted") {
                    _ = try ContractFixtures.decode(type, full.setting(path: path, to: .string("yesterday")))
                }
            }
        }
    }

    @Test("every spec enum value decodes to a known case, every known case is in the spec, others to unknown(raw)",
          arguments: eventTypes)
    func enums(eventType: String) throws {
        let event = try ContractFixtures.event(eventType)
        let type = ContractFixtures.model(for: eventType)
        let full = ContractFixtures.full(event.fields)
        let model = try ContractFixtures.decode(type, full)
        for (path, field) in ContractFixtures.allFields(event.fields) {
            guard let openEnum = ContractFixtures.swiftField(of: model, at: path)?.openEnum else { continue }
            let name = "\(eventType) \(path.joined(separator: "."))"
            let specValues = field.enumValues ?? []
            #expect(Set(openEnum.knownWireValues).subtracting(specValues).isEmpty, "\(name): known Swift cases not in the spec")
            for value in specValues {
                let decoded = try ContractFixtures.decode(type, full.setting(path: path, to: .string(value)))
                let landed = ContractFixtures.swiftField(of: decoded, at: path)?.value as? any OpenEnum
                #expect(landed?.isKnownCase == true && landed?.rawValue == value, "\(name): '\(value)' is not a known case")
            }
            let novel = "NotInTheContract"
            let decoded = try ContractFixtures.decode(type, full.setting(path: path, to: .string(novel)))
            let landed = ContractFixtures.swiftField(of: decoded, at: path)?.value as? any OpenEnum
            #expect(landed?.isKnownCase == false && landed?.rawValue == novel, "\(name): an unknown value must decode to unknown(raw)")
        }
    }

    @Test("the merged models hold every field of their family's events",
          arguments: ContractFixtures.mergedStreams.map(\.id.rawValue))
    func mergedModels(stream: String) throws {
        let descriptor = StreamCatalog.descriptor(StreamID(rawValue: stream))
        var specNames: Set<String> = []
        var swiftNames: Set<String> = []
        for eventType in descriptor.eventTypes.sorted() {
            let event = try ContractFixtures.event(eventType)
            specNames.formUnion(event.fields.map(\.name))
            let full = ContractFixtures.full(event.fields)
            let model = try ContractFixtures.decode(descriptor.outputType, full)
            swiftNames.formUnion(SwiftField.fields(of: model).map(\.name))
            #expect(try ContractFixtures.encode(model) == full, "\(stream) loses part of \(eventType)")
        }
        #expect(swiftNames == specNames, "\(stream)")
        #expect(specNames.subtracting(descriptor.outputType.knownFieldNames).isEmpty, "\(stream)")
    }

    // MARK: - Shape check

    static func check(_ fields: [EventContract.Field], against properties: [SwiftField], at path: String, header: Set<String>) {
        for field in fields {
            guard let property = properties.first(where: { $0.name == field.name }) else {
                Issue.record("\(path).\(field.name): no stored property")
                continue
            }
            check(field, property, at: "\(path).\(field.name)", isLegacySharedHeader: header.contains(field.name))
        }
    }

    static func check(_ field: EventContract.Field, _ property: SwiftField, at path: String, isLegacySharedHeader: Bool) {
        if isLegacySharedHeader {
            #expect(field.isRequired && property.isOptional, "\(path): required on the wire, Optional in Swift")
        } else {
            #expect(field.isRequired == !property.isOptional,
                    "\(path): the spec says \(field.isRequired ? "required" : "optional"), Swift says \(property.isOptional ? "Optional" : "non-optional")")
        }
        if let expected = property.expectedJSON {
            #expect(field.type == expected.type, "\(path): spec type \(field.type), Swift \(property.type) needs \(expected.type)")
            #expect(expected.formats.contains(field.format),
                    "\(path): spec format \(field.format ?? "none"), Swift \(property.type) allows \(expected.formats.map { $0 ?? "none" })")
        } else {
            #expect(field.type == .object, "\(path): spec type \(field.type), Swift \(property.type) is a struct")
            guard let value = property.value else {
                Issue.record("\(path): the full payload left \(property.type) empty")
                return
            }
            let nested = SwiftField.fields(of: value)
            #expect(Set(nested.map(\.name)) == Set(field.fields.map(\.name)), "\(path): properties differ")
            check(field.fields, against: nested, at: path, header: [])
        }
        if let openEnum = property.openEnum {
            #expect(Set(field.enumValues ?? []) == Set(openEnum.knownWireValues),
                    "\(path): spec values \(field.enumValues ?? []), Swift known cases \(openEnum.knownWireValues)")
        } else if let values = field.enumValues {
            #expect(field.name == "eventType" && values.count == 1,
                    "\(path): the spec allows only \(values) but \(property.type) is not one of the models' enums")
        }
        if let elementType = property.elementType {
            guard let items = field.items else {
                Issue.record("\(path): Swift \(property.type) is an array, the spec gives no items")
                return
            }
            let item = SwiftField(name: "[]", type: elementType, isOptional: false, value: property.elements?.first)
            check(items, item, at: path + "[]", isLegacySharedHeader: false)
        }
    }
}
