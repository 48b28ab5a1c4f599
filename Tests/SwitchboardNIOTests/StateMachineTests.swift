import Foundation
import NIOCore
import NIOWebSocket
import SwitchboardCore
@testable import SwitchboardNIO
import Testing

@Suite("WebSocket state machine", .timeLimit(.minutes(1)))
struct StateMachineTests {
    private func frame(_ opcode: WebSocketOpcode, fin: Bool = true, _ bytes: [UInt8]) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(bytes: bytes))
    }

    private func closePayload(_ code: UInt16, _ reason: String = "") -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
    }

    private func failureCode(_ action: WebSocketStateMachine.Action) -> UInt16? {
        guard case .finish(.failed(let error), _) = action else { return nil }
        return (error.cause as? NIOWebSocketProtocolError)?.closeCode.rawValue
    }

    @Test("a ping is answered with a pong of the same payload; pongs are reported")
    func pingPong() {
        var machine = WebSocketStateMachine(maximumMessageSize: 100)
        #expect(machine.received(frame(.ping, [1, 2])) == .send(OutboundFrame(opcode: .pong, payload: ByteBuffer(bytes: [1, 2]))))
        #expect(machine.received(frame(.pong, [3])) == .pongReceived(ByteBuffer(bytes: [3])))
    }

    @Test("a server close is echoed with its code; nothing is handled after it")
    func serverClose() {
        var machine = WebSocketStateMachine(maximumMessageSize: 100)
        let action = machine.received(frame(.connectionClose, closePayload(4001, "bye")))
        #expect(action == .finish(
            .closed(WebSocketClose(code: WebSocketCloseCode(4001), reason: "bye")),
            reply: OutboundFrame(opcode: .connectionClose, payload: ByteBuffer(bytes: closePayload(4001)))))
        #expect(!machine.isOpen)
        #expect(machine.received(frame(.text, Array("late".utf8))) == .none)
        #expect(machine.readEnded(cause: nil) == .none)
    }

    @Test("after a client close, messages still arrive and the server's close ends it without a reply")
    func clientClose() {
        var machine = WebSocketStateMachine(maximumMessageSize: 100)
        let sent = machine.closeRequested(WebSocketClose(code: .normalClosure, reason: "done"))
        #expect(sent == OutboundFrame(opcode: .connectionClose, payload: ByteBuffer(bytes: closePayload(1000, "done"))))
        #expect(machine.closeRequested(WebSocketClose(code: .goingAway)) == nil, "closing twice sends one frame")
        #expect(!machine.isOpen)
        #expect(machine.received(frame(.text, Array("in flight".utf8))) == .deliver(.text("in flight")))
        #expect(machine.received(frame(.connectionClose, closePayload(1000))) == .finish(
            .closed(WebSocketClose(code: .normalClosure)), reply: nil))
    }

    @Test("the close timer and a dropped socket end a client close with the close that was sent")
    func closeTimeoutAndDrop() {
        var timedOut = WebSocketStateMachine(maximumMessageSize: 100)
        _ = timedOut.closeRequested(WebSocketClose(code: WebSocketCloseCode(4000), reason: "x"))
        #expect(timedOut.closeTimerFired() == .finish(.closed(WebSocketClose(code: WebSocketCloseCode(4000), reason: "x")), reply: nil))
        var dropped = WebSocketStateMachine(maximumMessageSize: 100)
        _ = dropped.closeRequested(WebSocketClose(code: .normalClosure))
        #expect(dropped.readEnded(cause: nil) == .finish(.closed(WebSocketClose(code: .normalClosure)), reply: nil))
        var open = WebSocketStateMachine(maximumMessageSize: 100)
        #expect(open.closeTimerFired() == .none, "a stray timer does nothing")
    }

    @Test("a drop without a close frame is a network error mentioning 1006")
    func dropWithoutClose() {
        var machine = WebSocketStateMachine(maximumMessageSize: 100)
        guard case .finish(.failed(let error), nil) = machine.readEnded(cause: nil) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .network)
        #expect(error.message.contains("1006"))
    }

    @Test("fragments are reassembled; limits and UTF-8 are checked on the whole message")
    func reassembly() {
        var machine = WebSocketStateMachine(maximumMessageSize: 8)
        #expect(machine.received(frame(.text, fin: false, Array("ab".utf8) + [0xC3])) == .none)
        #expect(machine.received(frame(.ping, [])) == .send(OutboundFrame(opcode: .pong, payload: ByteBuffer())))
        #expect(machine.received(frame(.continuation, fin: true, [0xA9])) == .deliver(.text("abé")))
        #expect(machine.received(frame(.binary, fin: false, [1, 2, 3, 4, 5])) == .none)
        #expect(failureCode(machine.received(frame(.continuation, fin: false, [6, 7, 8, 9]))) == 1009)
    }

    @Test("protocol errors close with the right code", arguments: [
        (WebSocketOpcode.continuation, [UInt8](), UInt16(1002)),
        (.text, [0xFF], 1007),
        (.connectionClose, [0x03], 1002),
        (.connectionClose, [0x03, 0xEE], 1002),  // 1006 may not be sent
        (.connectionClose, [0x03, 0xE8, 0xFF], 1007),
    ])
    func protocolErrors(opcode: WebSocketOpcode, bytes: [UInt8], code: UInt16) {
        var machine = WebSocketStateMachine(maximumMessageSize: 100)
        let action = machine.received(frame(opcode, bytes))
        #expect(failureCode(action) == code)
        guard case .finish(_, let reply?) = action else {
            Issue.record("expected a close frame")
            return
        }
        var payload = reply.payload
        #expect(payload.readInteger(as: UInt16.self) == code)
    }

    @Test("a new message inside a fragmented one, an unknown opcode and a single-frame message over the limit fail")
    func moreErrors() {
        var interleaved = WebSocketStateMachine(maximumMessageSize: 100)
        _ = interleaved.received(frame(.text, fin: false, [65]))
        #expect(failureCode(interleaved.received(frame(.text, [66]))) == 1002)
        var unknown = WebSocketStateMachine(maximumMessageSize: 100)
        #expect(failureCode(unknown.received(frame(WebSocketOpcode(encodedWebSocketOpcode: 0x3)!, []))) == 1002)
        var big = WebSocketStateMachine(maximumMessageSize: 3)
        #expect(failureCode(big.received(frame(.binary, [1, 2, 3, 4]))) == 1009)
    }

    @Test("close frames carry sendable codes only and reasons of at most 123 bytes")
    func closeFrames() {
        let long = WebSocketStateMachine.closeFrame(WebSocketClose(code: .normalClosure, reason: String(repeating: "é", count: 100)))
        #expect(long.payload.readableBytes <= 125)
        #expect(WebSocketStateMachine.validText(long.payload.getSlice(at: 2, length: long.payload.readableBytes - 2)!) != nil,
                "cut at a character boundary")
        #expect(WebSocketStateMachine.closeFrame(WebSocketClose(code: .abnormalClosure)).payload.readableBytes == 0)
        #expect(WebSocketStateMachine.closeFrame(WebSocketClose(code: WebSocketCloseCode(1005))).payload.readableBytes == 0)
    }

    @Test("releasing an open connection closes with 1001")
    func released() {
        var machine = WebSocketStateMachine(maximumMessageSize: 100)
        guard case .finish(.failed, let reply?) = machine.released() else {
            Issue.record("expected a close")
            return
        }
        var payload = reply.payload
        #expect(payload.readInteger(as: UInt16.self) == 1001)
    }
}
