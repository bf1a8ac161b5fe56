import Foundation
import ReelAsset
import ReelCore

/// The studio's photos and videos: files in the user's XDG pictures and videos
/// folders, each in a `Reel` subfolder (or both in `--library`), with a JPEG
/// thumbnail of each in a `.thumbnails` folder beside them.
///
/// Items are named by their file name alone; a name that is not a plain file name
/// of the library (a path, `..`, a hidden file) is never looked up.
///
/// A deleted item waits in a `.trash` folder beside it until the studio starts again,
/// so the gallery can undo a delete (``restore(named:)``).
final class MediaLibrary: @unchecked Sendable {
    enum Kind: String, Codable, Sendable { case photo, video }

    struct Item: Codable, Sendable, Equatable {
        var name: String
        var kind: Kind
        var bytes: Int64
        /// Seconds since 1970.
        var created: Double
        /// Seconds, for videos.
        var duration: Double?
        var width: Int?
        var height: Int?
        var url: String
        var thumbnail: String
    }

    static let photoExtensions: Set<String> = ["jpg", "jpeg", "png"]
    static let videoExtensions: Set<String> = ["mp4", "mov", "m4v"]
    static let thumbnailWidth = 320

    let photoFolder: URL
    let videoFolder: URL
    private let lock = NSLock()
    /// What is known of each file, by path and modification time, so listing does not reopen every video.
    private var probed: [String: (modified: Date, item: Item)] = [:]

    /// The library in `folder`, or the XDG folders when nil.
    /// - Throws: ``ReelError`` `.io` naming the folder that cannot be made.
    init(folder: URL?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ReelError) {
        if let folder {
            photoFolder = folder
            videoFolder = folder
        } else {
            let places = XDGUserDirectories(environment: environment)
            photoFolder = places.pictures.appendingPathComponent("Reel")
            videoFolder = places.videos.appendingPathComponent("Reel")
        }
        for folder in [photoFolder, videoFolder] {
            // Deletions of the last session are final now.
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(".trash"))
            do {
                try FileManager.default.createDirectory(at: folder.appendingPathComponent(".thumbnails"),
                                                        withIntermediateDirectories: true)
            } catch {
                throw ReelError(.io, "cannot make the library folder: \(error.localizedDescription)", subject: folder.path)
            }
        }
    }

    /// Whether `name` is a plain file name the library could hold.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 200 && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\\")
            && !name.contains("\0") && kind(ofName: name) != nil
    }

    static func kind(ofName name: String) -> Kind? {
        let ext = URL(fileURLWithPath: name).pathExtension.lowercased()
        if photoExtensions.contains(ext) { return .photo }
        if videoExtensions.contains(ext) { return .video }
        return nil
    }

    /// The file of item `name`, if the library has it.
    func file(named name: String) -> URL? {
        guard Self.isPlainName(name), let kind = Self.kind(ofName: name) else { return nil }
        let url = (kind == .photo ? photoFolder : videoFolder).appendingPathComponent(name)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else { return nil }
        return url
    }

    func thumbnailFile(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".thumbnails").appendingPathComponent(url.lastPathComponent + ".jpg")
    }

    /// Every item, newest first. Files still being written (`NAME.partial.EXT`,
    /// `NAME.partial-2.EXT`; the others are hidden until renamed) are left out.
    func items() -> [Item] {
        var seen = Set<String>()
        var found: [Item] = []
        for folder in [photoFolder, videoFolder] where seen.insert(folder.path).inserted {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names where Self.isPlainName(name) && !name.contains(".partial.") && !name.contains(".partial-") {
                guard let url = file(named: name), let item = item(at: url) else { continue }
                found.append(item)
            }
        }
        return found.sorted { ($0.created, $0.name) > ($1.created, $1.name) }
    }

    /// What the library knows of the file at `url`, nil when it is not readable media.
    func item(at url: URL) -> Item? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let kind = Self.kind(ofName: url.lastPathComponent) else { return nil }
        let modified = attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
        if let known = lock.withLock({ probed[url.path] }), known.modified == modified { return known.item }
        let name = url.lastPathComponent
        let escaped = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name
        var item = Item(name: name, kind: kind, bytes: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
                        created: modified.timeIntervalSince1970, url: "/library/\(escaped)",
                        thumbnail: "/library/thumbnails/\(escaped)")
        if let asset = try? Asset(url: url), let track = asset.tracks(withMediaType: .video).first {
            item.width = Int(track.naturalSize.width)
            item.height = Int(track.naturalSize.height)
            if kind == .video { item.duration = asset.duration.seconds }
        } else if kind == .video {
            return nil
        }
        lock.withLock { probed[url.path] = (modified, item) }
        return item
    }

    /// A new file name in the right folder: `Reel PREFIX 2025-01-31 12.00.00.EXT`, never an existing one.
    func newFile(kind: Kind, prefix: String, extension ext: String) -> URL {
        let folder = kind == .photo ? photoFolder : videoFolder
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH.mm.ss"
        let stamp = formatter.string(from: Date())
        var candidate = folder.appendingPathComponent("Reel \(prefix) \(stamp).\(ext)")
        var number = 2
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = folder.appendingPathComponent("Reel \(prefix) \(stamp) \(number).\(ext)")
            number += 1
        }
        return candidate
    }

    /// The thumbnail of `url`, made now if it is missing or older than the file.
    func thumbnail(for url: URL) throws(ReelError) -> URL {
        let thumbnail = thumbnailFile(for: url)
        let fileDate = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]) as? Date
        let thumbDate = (try? FileManager.default.attributesOfItem(atPath: thumbnail.path)[.modificationDate]) as? Date
        if let thumbDate, let fileDate, thumbDate >= fileDate { return thumbnail }
        let asset = try Asset(url: url)
        let generator = ImageGenerator(asset: asset)
        generator.appliesPreferredTrackTransform = true
        generator.maximumSize = Size(width: Double(Self.thumbnailWidth), height: Double(Self.thumbnailWidth))
        generator.requestedTimeToleranceAfter = .positiveInfinity
        let time = asset.duration.seconds > 1 ? MediaTime(value: 1, timescale: 2) : .zero
        let picture = try generator.image(at: time).image
        try ImageFile.write(picture, to: thumbnail, format: .jpeg(quality: 4))
        return thumbnail
    }

    /// Writes a thumbnail from a picture already in memory (a photo just taken).
    func writeThumbnail(_ picture: PixelBuffer, for url: URL) throws(ReelError) {
        let width = min(Self.thumbnailWidth, picture.width)
        let height = max(2, (picture.height * width / max(1, picture.width)) / 2 * 2)
        let small = try PixelScaler.converted(picture, to: .yuv420p, width: width / 2 * 2, height: height)
        try ImageFile.write(small, to: thumbnailFile(for: url), format: .jpeg(quality: 4))
    }

    /// Removes item `name` and its thumbnail.
    /// - Throws: ``ReelError`` `.fileNotFound` when there is no such item, `.io` when it cannot be removed.
    func delete(named name: String) throws(ReelError) {
        guard let url = file(named: name) else { throw ReelError(.fileNotFound, "the library has no such item", subject: name) }
        let trash = trashFile(for: url)
        do {
            try FileManager.default.createDirectory(at: trash.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: trash)
            try FileManager.default.moveItem(at: url, to: trash)
        } catch {
            throw ReelError(.io, "cannot delete: \(error.localizedDescription)", subject: name)
        }
        try? FileManager.default.removeItem(at: thumbnailFile(for: url))
        _ = lock.withLock { probed.removeValue(forKey: url.path) }
    }

    private func trashFile(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".trash").appendingPathComponent(url.lastPathComponent)
    }

    /// Puts a deleted item back (the gallery's undo).
    /// - Throws: ``ReelError`` `.fileNotFound` when it was not deleted in this session,
    ///   `.invalidState` when a new item has taken its name.
    func restore(named name: String) throws(ReelError) {
        guard Self.isPlainName(name), let kind = Self.kind(ofName: name) else {
            throw ReelError(.fileNotFound, "the library has no such item", subject: name)
        }
        let url = (kind == .photo ? photoFolder : videoFolder).appendingPathComponent(name)
        let trash = trashFile(for: url)
        guard FileManager.default.fileExists(atPath: trash.path) else {
            throw ReelError(.fileNotFound, "there is no deleted item of this name to put back", subject: name)
        }
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw ReelError(.invalidState, "another item has this name now", subject: name)
        }
        do {
            try FileManager.default.moveItem(at: trash, to: url)
        } catch {
            throw ReelError(.io, "cannot put it back: \(error.localizedDescription)", subject: name)
        }
    }
}
