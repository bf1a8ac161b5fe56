import Foundation
import ReelAV
import ReelCore

/// Microphones and screens read through libavdevice: `pulse:NAME`, `alsa:NAME`, `x11:DISPLAY`.
extension CaptureDevice {
    /// The live device with `id`, opened once to check it is there; nil for an ID of
    /// another kind.
    static func liveDevice(withUniqueID id: String) throws(ReelError) -> CaptureDevice? {
        if id.hasPrefix("v4l2:") { return try V4L2Camera.shared(path: String(id.dropFirst(5))).makeDevice() }
        let prefixes: [(String, (String) -> Source)] = [
            ("pulse:", { .pulse(name: $0) }), ("alsa:", { .alsa(name: $0) }), ("x11:", { .x11(display: $0) }),
        ]
        guard let (prefix, make) = prefixes.first(where: { id.hasPrefix($0.0) }) else { return nil }
        let name = String(id.dropFirst(prefix.count))
        guard !name.isEmpty else {
            throw ReelError(.invalidArgument, "a device name must follow '\(prefix)' (\(prefix)default)", subject: id)
        }
        return try live(id: id, source: make(name), name: nil, probing: true)
    }

    /// A live device for `source`; `probing` opens it once, which a screen needs for its size.
    static func live(id: String, source: Source, name: String?, probing: Bool) throws(ReelError) -> CaptureDevice {
        guard let opening = source.opening(frameRate: 30) else {
            throw ReelError(.invalidArgument, "not a live device", subject: id)
        }
        var size = (width: 0, height: 0)
        if probing || opening.mediaType == .video {
            do throws(ReelError) { size = try LiveDevice.probe(opening, id: id) } catch {
                guard error.code == .permissionDenied, case .alsa = source else { throw error }
                var explained = error
                explained.message += "; add yourself to the audio group (usermod -aG audio $USER) and log in again"
                throw explained
            }
        }
        switch source {
        case .x11(let display):
            return CaptureDevice(uniqueID: id, localizedName: name ?? "Screen \(display)", deviceType: .camera,
                                 position: .external, formats: screenFormats(width: size.width, height: size.height),
                                 source: source, capabilities: [])
        default:
            let kind = if case .pulse = source { "PulseAudio" } else { "ALSA" }
            return CaptureDevice(uniqueID: id, localizedName: name ?? "\(kind) \(id.split(separator: ":", maxSplits: 1).last ?? "")",
                                 deviceType: .microphone, position: .unspecified, formats: [], source: source,
                                 capabilities: [])
        }
    }

    /// A screen's own size, then the usual smaller sizes it is scaled down to.
    static func screenFormats(width: Int, height: Int) -> [Format] {
        let sizes = [(width & ~1, height & ~1)] + [(1920, 1080), (1280, 720), (640, 480), (320, 240)]
            .filter { $0.0 < width && $0.1 < height }
        return sizes.map { Format(width: $0.0, height: $0.1, pixelFormat: "bgr0", minFrameRate: 1, maxFrameRate: 60) }
    }

    /// The PulseAudio sources (with `pulse:default` when a server answers), the ALSA
    /// capture devices libavdevice lists for the sound cards there are, the X11 displays with a socket in
    /// /tmp/.X11-unix and the V4L2 cameras.
    static func discoverLiveDevices() -> [CaptureDevice] {
        var found: [CaptureDevice] = []
        let pulse = LiveInput.sources(inputFormat: "pulse")
        if !pulse.isEmpty {
            found += [CaptureDevice(uniqueID: "pulse:default", localizedName: "PulseAudio default source",
                                    deviceType: .microphone, position: .unspecified, formats: [], source: .pulse(name: "default"),
                                    capabilities: [])]
        }
        for source in pulse {
            if let device = try? live(id: "pulse:\(source.name)", source: .pulse(name: source.name), name: source.description,
                                      probing: false) { found.append(device) }
        }
        // ALSA's hints also name every plugin (null, jack, speex…): only cards' devices count,
        // and only where the kernel has a card at all.
        let cards = FileManager.default.fileExists(atPath: "/proc/asound/cards")
            && !((try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? "").contains("no soundcards")
        let alsa = cards ? LiveInput.sources(inputFormat: "alsa") : []
        for source in alsa where ["default", "sysdefault", "hw:", "plughw:"].contains(where: source.name.hasPrefix) {
            if let device = try? live(id: "alsa:\(source.name)", source: .alsa(name: source.name), name: source.description,
                                      probing: false) { found.append(device) }
        }
        let sockets = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp/.X11-unix")) ?? []
        for socket in sockets.sorted() where socket.hasPrefix("X") && Int(socket.dropFirst()) != nil {
            let display = ":\(socket.dropFirst())"
            if let device = try? live(id: "x11:\(display)", source: .x11(display: display), name: nil, probing: true) {
                found.append(device)
            }
        }
        return found + V4L2Camera.discover()
    }
}
