import Foundation
public import ReelCore

/// One effect with its parameters, made by its Core Image name. `CIFilter`.
///
/// Parameters are set by name and may change at any time from any thread; a
/// ``FilterChain`` picks up the change at its next frame.
public final class Filter: @unchecked Sendable {
    /// The name without the `CI` prefix: `PhotoEffectNoir`.
    public let name: String
    /// The table of a `ColorCube` filter.
    public let cube: CubeLUT?
    let entry: FilterCatalog.Entry
    private let lock = NSLock()
    private var values: [String: Double] = [:]
    private var version = 0
    /// Unique for the life of the process, unlike an object's address, which a new filter
    /// can reuse once an old one is freed.
    let serial = Filter.nextSerial()
    private static let counter = NSLock()
    nonisolated(unsafe) private static var lastSerial = 0
    private static func nextSerial() -> Int {
        counter.lock()
        defer { counter.unlock() }
        lastSerial += 1
        return lastSerial
    }

    /// The filter called `name` (`PhotoEffectNoir` or `CIPhotoEffectNoir`). `CIFilter(name:)`.
    /// - Parameter name: The filter's name as `reel filters` lists it, with or without `CI`.
    /// - Throws: ``ReelError`` `.invalidArgument` for a name Reel does not have.
    public init(name: String) throws(ReelError) {
        guard let entry = FilterCatalog.entry(named: name), entry.name != "ColorCube" else {
            let known = FilterCatalog.entries.map(\.name).joined(separator: ", ")
            throw ReelError(.invalidArgument, "unknown filter '\(ReelError.quoted(name))'; Reel has \(known)", subject: ReelError.quoted(name))
        }
        self.entry = entry
        self.name = entry.name
        cube = nil
    }

    /// A `ColorCube` filter with a loaded table.
    /// - Parameter cube: The 3D table the filter looks colours up in.
    public init(cube: CubeLUT) {
        entry = FilterCatalog.entry(named: "ColorCube") ?? FilterCatalog.entries[FilterCatalog.entries.count - 1]
        name = "ColorCube"
        self.cube = cube
    }

    /// The names of the parameters. `inputKeys`.
    public var inputKeys: [String] { entry.parameters.map(\.name) }

    /// Sets a parameter (`saturation`, or Core Image's `inputSaturation`). `setValue(_:forKey:)`.
    /// - Parameters:
    ///   - value: The parameter's new value, within its range.
    ///   - key: The parameter's name, with or without Core Image's `input` prefix.
    /// - Throws: ``ReelError`` `.invalidArgument` for an unknown name or a value out of range.
    public func setValue(_ value: Double, forKey key: String) throws(ReelError) {
        let name = Self.parameterName(key)
        guard let parameter = entry.parameters.first(where: { $0.name == name }) else {
            let known = inputKeys.isEmpty ? "none" : inputKeys.joined(separator: ", ")
            throw ReelError(.invalidArgument, "\(self.name) has no parameter '\(key)' (it has \(known))", subject: self.name)
        }
        guard value.isFinite, parameter.range.contains(value) else {
            throw ReelError(.invalidArgument,
                            "\(self.name).\(name) wants a value in \(parameter.range.lowerBound)...\(parameter.range.upperBound), not \(value)",
                            subject: self.name)
        }
        lock.lock()
        values[name] = value
        version += 1
        lock.unlock()
    }

    /// A parameter's value, or its default. `value(forKey:)`.
    /// - Parameter key: The parameter's name, with or without Core Image's `input` prefix.
    /// - Returns: The value set, or the default; nil for a parameter this filter does not have.
    public func value(forKey key: String) -> Double? {
        let name = Self.parameterName(key)
        lock.lock()
        defer { lock.unlock() }
        return values[name] ?? entry.parameters.first { $0.name == name }?.defaultValue
    }

    /// The parameters as set, and a counter that moves on every change.
    var snapshot: (values: [String: Double], version: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (values, version)
    }

    /// `inputSaturation` → `saturation`.
    static func parameterName(_ key: String) -> String {
        guard key.hasPrefix("input"), key.count > 5 else { return key }
        let rest = key.dropFirst(5)
        return rest.prefix(1).lowercased() + rest.dropFirst()
    }
}
