//! Device frames over UDP: every datagram received is handed to ingest as it is. Decoding, checking
//! and merging happen in ingest ([`crate::ingest::fleet`]), so a malformed datagram costs one
//! counter there and never stops this thread.

use std::net::UdpSocket;
use std::time::Duration;

use super::{send, Control, SourceMsg};

/// The largest UDP payload.
const MAX_DATAGRAM: usize = 65_535;

/// Receives datagrams until asked to stop or ingest hangs up.
pub fn receive(socket: &UdpSocket, control: &Control, tx: &std::sync::mpsc::SyncSender<SourceMsg>) {
    // Wake up now and then to notice a stop request.
    if socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .is_err()
    {
        let _ = send(
            tx,
            SourceMsg::End(Some("cannot set a read timeout on the socket".into())),
        );
        return;
    }
    let mut buf = vec![0u8; MAX_DATAGRAM];
    while !control.stopped() {
        match socket.recv_from(&mut buf) {
            Ok((n, from)) => {
                let bytes = buf.get(..n).unwrap_or_default().to_vec();
                if !send(tx, SourceMsg::Datagram { from, bytes }) {
                    return;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) => {}
            Err(e) => {
                let _ = send(tx, SourceMsg::End(Some(format!("udp receive failed: {e}"))));
                return;
            }
        }
    }
}
