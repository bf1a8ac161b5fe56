import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelFilters
import ReelTestSupport
import Testing

/// Every input that once crashed a fuzz target (Fuzz/Regressions/<target>/) goes through
/// the same code again: it must be refused with one line, or accepted, never crash.
@Suite struct FuzzRegressionTests {
    static let root = Paths.packageRoot.appendingPathComponent("Fuzz/Regressions")

    static func inputs(_ target: String) -> [URL] {
        let folder = root.appendingPathComponent(target)
        return ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { !$0.lastPathComponent.hasPrefix(".") }.sorted { $0.path < $1.path }
    }

    @Test func cubeTablesThatCrashedAreRefusedOrApplied() throws {
        let files = Self.inputs("FuzzCubeLUT")
        #expect(!files.isEmpty)
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            do throws(ReelError) {
                let table = try CubeLUT(text: text)
                let picture = try PixelBuffer(width: 8, height: 6, pixelFormat: .rgba)
                _ = try FilterChain([Filter(cube: table)]).apply(picture)
            } catch {
                #expect(!error.description.contains("\n"), "\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test func anInfiniteDomainIsRefusedByLine() {
        let text = "LUT_3D_SIZE 2\nDOMAIN_MIN -inf 0 0\n" + String(repeating: "0 0 0\n", count: 8)
        #expect {
            try CubeLUT(text: text)
        } throws: { error in
            (error as? ReelError)?.description == "line 2: DOMAIN_MIN wants three finite numbers"
        }
    }

    @Test func specsThatCrashedAreRefusedOrBuilt() throws {
        let media = try Paths.temporaryDirectory("reel-fuzz-spec")
        defer { try? FileManager.default.removeItem(at: media) }
        _ = try Corpus.copy("valid.mp4", to: media)
        for file in Self.inputs("FuzzCompositionSpec") {
            let data = try Data(contentsOf: file)
            do throws(ReelError) {
                var spec = try CompositionSpec(data: data, name: file.path)
                for index in spec.clips.indices { spec.clips[index].file = "valid.mp4" }
                let built = try spec.build(relativeTo: media)
                _ = try TimelinePicture.render(built.composition, video: built.videoComposition, width: 320)
            } catch {
                #expect(!error.description.contains("\n"), "\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test func filesThatCrashedAreRefusedOrRead() throws {
        for file in Self.inputs("FuzzAsset") {
            do throws(ReelError) {
                let asset = try Asset(url: file)
                let reader = try AssetReader(asset: asset)
                if let video = asset.tracks(withMediaType: .video).first {
                    let output = AssetReaderTrackOutput(track: video, videoSettings: VideoOutputSettings(pixelFormat: .rgba))
                    try reader.add(output)
                    try reader.startReading()
                    for _ in 0..<4 { guard try output.copyNextSampleBuffer() != nil else { break } }
                }
            } catch {
                #expect(!error.description.contains("\n"), "\(file.lastPathComponent): \(error)")
            }
        }
    }
}
