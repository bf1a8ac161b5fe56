import Foundation

/// The user's pictures and videos folders as the XDG user-dirs spec says: the
/// `XDG_PICTURES_DIR` and `XDG_VIDEOS_DIR` variables, else the lines of that name in
/// `$XDG_CONFIG_HOME/user-dirs.dirs` (`~/.config/user-dirs.dirs`), else `~/Pictures`
/// and `~/Videos`.
struct XDGUserDirectories: Sendable {
    let pictures: URL
    let videos: URL

    init(environment: [String: String]) {
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? home.appendingPathComponent(".config")
        let text = (try? String(contentsOf: config.appendingPathComponent("user-dirs.dirs"), encoding: .utf8)) ?? ""
        var fromFile: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            fromFile[pair[0].trimmingCharacters(in: .whitespaces)] = value
        }
        func folder(_ key: String, _ fallback: String) -> URL {
            let set = environment[key].flatMap { $0.isEmpty ? nil : $0 }
            guard let value = set ?? fromFile[key], !value.isEmpty else { return home.appendingPathComponent(fallback) }
            if value.hasPrefix("$HOME") { return URL(fileURLWithPath: home.path + value.dropFirst(5)) }
            return value.hasPrefix("/") ? URL(fileURLWithPath: value) : home.appendingPathComponent(value)
        }
        pictures = folder("XDG_PICTURES_DIR", "Pictures")
        videos = folder("XDG_VIDEOS_DIR", "Videos")
    }
}
