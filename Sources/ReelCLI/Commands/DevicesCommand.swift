import Dispatch
import Foundation
import ReelAsset
import ReelCapture
import ReelCore
import ReelFilters

/// `reel devices [--json]`: the capture devices and their formats.
struct DevicesCommand: Command {
    let spec = CommandSpec(name: "devices", abstract: "List capture devices and their formats.", usage: "[--json]",
                           positionals: 0...0, options: [.flag("json", help: "Print a JSON list.")],
                           discussion: "file:PATH also works as a camera: it plays the file as a live source, looping.")

    struct Entry: Encodable {
        var id: String
        var name: String
        var mediaType: String
        var position: String
        var formats: [CaptureDevice.Format]
    }

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let entries = CaptureDevice.devices.map {
            Entry(id: $0.uniqueID, name: $0.localizedName, mediaType: $0.mediaType.rawValue, position: $0.position.rawValue,
                  formats: $0.formats)
        }
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            console.print(String(decoding: try encoder.encode(entries), as: UTF8.self))
        } else {
            for entry in entries {
                console.print("\(entry.id)  \(entry.name) (\(entry.mediaType), \(entry.position))")
                for format in entry.formats {
                    console.print("    \(format.width)x\(format.height) \(format.pixelFormat) \(Format.number(format.minFrameRate))-\(Format.number(format.maxFrameRate)) fps")
                }
            }
        }
        return 0
    }
}

