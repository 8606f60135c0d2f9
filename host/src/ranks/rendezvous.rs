//! The TCP rendezvous of one process per GPU, and the small control channel it leaves
//! open.
//!
//! Rank 0 listens on `MASTER_ADDR:MASTER_PORT`; every other rank connects (retrying
//! while rank 0 is not up yet) and says who it is (`Hello`: rank, world size). Once
//! all `world - 1` have said so, rank 0 sends each the same payload (NCCL's unique id).
//! The connections stay open as a star around rank 0: [`Control::gather`] and
//! [`Control::broadcast`] move small messages (votes, file names, timings) and
//! [`Control::agree`] is the barrier that decides whether an output is committed.
//!
//! Every step has a deadline ([`Control::timeout`]): a rank that never comes, stops
//! answering or dies (its connection closes) is an [`Error::Communication`] naming the
//! rank and the step, on every rank that waits for it, within the timeout.
//!
//! Frames: 4 bytes `S`, `R`, kind, 0; the payload's length (u32, little-endian, at most
//! [`MAX_FRAME`]); the payload.
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The longest payload a frame may carry (a larger length is a corrupt stream).
pub const MAX_FRAME: usize = 1 << 20;

/// What a frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    /// A rank's rank and world size (two u32).
    Hello = 1,
    /// Rank 0's payload of the rendezvous (NCCL's unique id).
    Payload = 2,
    /// A rank's part of a [`Control::gather`].
    Gathered = 3,
    /// Rank 0's message of a [`Control::broadcast`].
    Broadcast = 4,
}

/// The control channel between the ranks after the rendezvous: rank 0 holds one
/// connection to every other rank, the others one to rank 0.
pub struct Control {
    rank: usize,
    world: usize,
    timeout: Duration,
    /// Rank 0: the connection of rank `r` at `r - 1`. Others: the connection to rank 0.
    links: Vec<TcpStream>,
}

fn fail(rank: usize, world: usize, step: &str, why: impl std::fmt::Display) -> Error {
    Error::Communication(format!("rank {rank} of {world}: {step}: {why}"))
}

/// Reads one frame before `deadline`; `Ok(None)` when the peer closed the connection
/// before the frame began.
fn read_frame(s: &mut TcpStream, deadline: Instant) -> std::io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 8];
    if !read_full(s, &mut head, deadline, true)? {
        return Ok(None);
    }
    if head[0] != b'S' || head[1] != b'R' || head[3] != 0 {
        return Err(std::io::Error::new(ErrorKind::InvalidData, "not a frame of this protocol"));
    }
    let len = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes")) as usize;
    if len > MAX_FRAME {
        return Err(std::io::Error::new(ErrorKind::InvalidData, format!("a frame of {len} bytes")));
    }
    let mut body = vec![0u8; len];
    read_full(s, &mut body, deadline, false)?;
    Ok(Some((head[2], body)))
}

/// Fills `buf` before `deadline`. At the start of a frame (`at_start`) a closed
/// connection is `Ok(false)`; in the middle of one it is an error.
fn read_full(s: &mut TcpStream, buf: &mut [u8], deadline: Instant, at_start: bool) -> std::io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(ErrorKind::TimedOut, "timed out"));
        }
        s.set_read_timeout(Some(left))?;
        match s.read(&mut buf[got..]) {
            Ok(0) if got == 0 && at_start => return Ok(false),
            Ok(0) => return Err(std::io::Error::new(ErrorKind::UnexpectedEof, "the connection closed mid-frame")),
            Ok(k) => got += k,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Err(std::io::Error::new(ErrorKind::TimedOut, "timed out"));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

fn write_frame(s: &mut TcpStream, kind: Kind, body: &[u8], deadline: Instant) -> std::io::Result<()> {
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
    s.set_write_timeout(Some(left))?;
    let mut frame = Vec::with_capacity(8 + body.len());
    frame.extend_from_slice(&[b'S', b'R', kind as u8, 0]);
    frame.extend_from_slice(&(body.len() as u32).to_le_bytes());
    frame.extend_from_slice(body);
    s.write_all(&frame)
}

/// Reads a frame of `kind` from rank `from`, as rank `me` of `world` in `step`.
fn expect(
    s: &mut TcpStream,
    kind: Kind,
    deadline: Instant,
    (me, world, from): (usize, usize, usize),
    step: &str,
) -> Result<Vec<u8>> {
    match read_frame(s, deadline) {
        Ok(Some((k, body))) if k == kind as u8 => Ok(body),
        Ok(Some((k, _))) => Err(fail(me, world, step, format!("rank {from} sent a frame of kind {k}"))),
        Ok(None) => Err(fail(me, world, step, format!("rank {from} closed the connection (it ended or died)"))),
        Err(e) if e.kind() == ErrorKind::TimedOut => Err(fail(me, world, step, format!("rank {from} did not answer"))),
        Err(e) => Err(fail(me, world, step, format!("reading from rank {from}: {e}"))),
    }
}

fn resolve(addr: &str, rank: usize, world: usize) -> Result<Vec<SocketAddr>> {
    let addrs: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|e| fail(rank, world, "resolving the rendezvous address", format!("{addr}: {e}")))?
        .collect();
    if addrs.is_empty() {
        return Err(fail(rank, world, "resolving the rendezvous address", format!("{addr} has no address")));
    }
    Ok(addrs)
}

impl Control {
    /// Rank 0's side: listens on `addr` (`host:port`) and runs [`Control::root`].
    pub fn listen(addr: &str, world: usize, timeout: Duration, payload: &[u8]) -> Result<Control> {
        let addrs = resolve(addr, 0, world)?;
        let listener =
            TcpListener::bind(&addrs[..]).map_err(|e| fail(0, world, "listening", format!("on {addr}: {e}")))?;
        Control::root(listener, world, timeout, payload)
    }

    /// Rank 0's side on a bound listener: accepts the other `world - 1` ranks (each
    /// once, each saying the same world size) within `timeout`, then sends each
    /// `payload`.
    pub fn root(listener: TcpListener, world: usize, timeout: Duration, payload: &[u8]) -> Result<Control> {
        let deadline = Instant::now() + timeout;
        let step = "rendezvous";
        let mut links: Vec<Option<TcpStream>> = (1..world).map(|_| None).collect();
        listener.set_nonblocking(true).map_err(|e| fail(0, world, step, e))?;
        while links.iter().any(Option::is_none) {
            let (mut s, peer) = match listener.accept() {
                Ok(c) => c,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
                    if Instant::now() >= deadline {
                        let missing: Vec<usize> = (1..world).filter(|r| links[r - 1].is_none()).collect();
                        return Err(fail(
                            0,
                            world,
                            step,
                            format!("ranks {missing:?} did not connect within {timeout:?}"),
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                }
                Err(e) => return Err(fail(0, world, step, format!("accepting: {e}"))),
            };
            s.set_nonblocking(false).map_err(|e| fail(0, world, step, e))?;
            let _ = s.set_nodelay(true);
            // A connection that says nothing, or not this protocol, is dropped: a port
            // scanner or a stale process is not one of the ranks.
            let Ok(Some((k, body))) = read_frame(&mut s, deadline.min(Instant::now() + Duration::from_secs(5))) else {
                continue;
            };
            if k != Kind::Hello as u8 || body.len() != 8 {
                continue;
            }
            let r = u32::from_le_bytes(body[0..4].try_into().expect("4 bytes")) as usize;
            let w = u32::from_le_bytes(body[4..8].try_into().expect("4 bytes")) as usize;
            if w != world {
                return Err(fail(0, world, step, format!("rank {r} at {peer} says the world has {w} ranks")));
            }
            if r == 0 || r >= world {
                return Err(fail(0, world, step, format!("a process at {peer} says it is rank {r}")));
            }
            if links[r - 1].is_some() {
                return Err(fail(
                    0,
                    world,
                    step,
                    format!("two processes say they are rank {r} (the second at {peer})"),
                ));
            }
            links[r - 1] = Some(s);
        }
        let mut links: Vec<TcpStream> = links.into_iter().map(|l| l.expect("every rank connected")).collect();
        for (i, s) in links.iter_mut().enumerate() {
            write_frame(s, Kind::Payload, payload, deadline)
                .map_err(|e| fail(0, world, "sending the rendezvous payload", format!("to rank {}: {e}", i + 1)))?;
        }
        Ok(Control { rank: 0, world, timeout, links })
    }

    /// Another rank's side: connects to rank 0 at `addr` (retrying until `timeout`,
    /// rank 0 may start later), says who it is and returns rank 0's payload.
    pub fn connect(addr: &str, rank: usize, world: usize, timeout: Duration) -> Result<(Control, Vec<u8>)> {
        if rank == 0 || rank >= world {
            return Err(Error::BadArgument(format!("rank {rank} does not connect to rank 0 of {world}")));
        }
        let deadline = Instant::now() + timeout;
        let step = "connecting to rank 0";
        let addrs = resolve(addr, rank, world)?;
        let mut s = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let tried = addrs.iter().map(|a| TcpStream::connect_timeout(a, left.max(Duration::from_millis(1))));
            let mut last = None;
            let mut found = None;
            for t in tried {
                match t {
                    Ok(s) => {
                        found = Some(s);
                        break;
                    }
                    Err(e) => last = Some(e),
                }
            }
            if let Some(s) = found {
                break s;
            }
            if Instant::now() >= deadline {
                let why = last.map_or_else(String::new, |e| format!(": {e}"));
                return Err(fail(rank, world, step, format!("no rank 0 at {addr} within {timeout:?}{why}")));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let _ = s.set_nodelay(true);
        let mut hello = (rank as u32).to_le_bytes().to_vec();
        hello.extend_from_slice(&(world as u32).to_le_bytes());
        write_frame(&mut s, Kind::Hello, &hello, deadline).map_err(|e| fail(rank, world, step, e))?;
        let payload = expect(&mut s, Kind::Payload, deadline, (rank, world, 0), "waiting for the rendezvous payload")?;
        Ok((Control { rank, world, timeout, links: vec![s] }, payload))
    }

    /// A control channel of one rank alone (nothing to talk to).
    pub fn alone(timeout: Duration) -> Control {
        Control { rank: 0, world: 1, timeout, links: Vec::new() }
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of ranks.
    pub fn world(&self) -> usize {
        self.world
    }

    /// How long each step may wait for the other ranks.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Every rank's `mine`, on rank 0 (`Some`, in rank order); `None` on the others.
    /// `step` names the step in errors.
    pub fn gather(&mut self, mine: &[u8], step: &str) -> Result<Option<Vec<Vec<u8>>>> {
        let deadline = Instant::now() + self.timeout;
        let (me, world) = (self.rank, self.world);
        if me != 0 {
            write_frame(&mut self.links[0], Kind::Gathered, mine, deadline)
                .map_err(|e| fail(me, world, step, format!("sending to rank 0: {e}")))?;
            return Ok(None);
        }
        let mut all = vec![mine.to_vec()];
        for (i, s) in self.links.iter_mut().enumerate() {
            all.push(expect(s, Kind::Gathered, deadline, (me, world, i + 1), step)?);
        }
        Ok(Some(all))
    }

    /// Rank 0's `message` on every rank (rank 0 passes `Some`, the others `None`).
    pub fn broadcast(&mut self, message: Option<&[u8]>, step: &str) -> Result<Vec<u8>> {
        let (me, world) = (self.rank, self.world);
        // The others wait for rank 0 through its share of the work before (a sort, a
        // write): twice the step timeout.
        let deadline = Instant::now() + 2 * self.timeout;
        if me == 0 {
            let Some(m) = message else {
                return Err(Error::BadArgument("rank 0 broadcasts a message".into()));
            };
            let mut failed = None;
            for (i, s) in self.links.iter_mut().enumerate() {
                // Every rank that can still hear it gets the message, even if one can't.
                if let Err(e) = write_frame(s, Kind::Broadcast, m, deadline) {
                    failed.get_or_insert(fail(me, world, step, format!("sending to rank {}: {e}", i + 1)));
                }
            }
            return failed.map_or(Ok(m.to_vec()), Err);
        }
        expect(&mut self.links[0], Kind::Broadcast, deadline, (me, world, 0), step)
    }

    /// The barrier that decides an outcome for all ranks: each rank brings its own
    /// (`mine`); when every rank succeeded rank 0 runs `commit` (a rename into place),
    /// and every rank returns rank 0's decision: `Ok` only if all succeeded and the
    /// commit did. A rank that does not report within the timeout, or died, fails it.
    pub fn agree(&mut self, mine: Result<()>, step: &str, commit: impl FnOnce() -> Result<()>) -> Result<()> {
        let vote = match &mine {
            Ok(()) => vec![1u8],
            Err(e) => [&[0u8][..], e.to_string().as_bytes()].concat(),
        };
        let (me, world) = (self.rank, self.world);
        let gathered = self.gather(&vote, step);
        if me != 0 {
            gathered?;
            let decision = self.broadcast(None, step)?;
            mine?;
            return match decision.split_first() {
                Some((1, _)) => Ok(()),
                Some((_, why)) => Err(fail(me, world, step, String::from_utf8_lossy(why))),
                None => Err(fail(me, world, step, "an empty decision from rank 0")),
            };
        }
        let outcome = gathered.and_then(|votes| {
            let votes = votes.expect("rank 0 gathers");
            for (r, v) in votes.iter().enumerate().skip(1) {
                if v.first() != Some(&1) {
                    let why = String::from_utf8_lossy(v.get(1..).unwrap_or_default()).into_owned();
                    return Err(fail(me, world, step, format!("rank {r} failed: {why}")));
                }
            }
            mine.and_then(|()| commit())
        });
        let decision = match &outcome {
            Ok(()) => vec![1u8],
            Err(e) => [&[0u8][..], e.to_string().as_bytes()].concat(),
        };
        // Told to those still listening; a rank that died does not need it, and one
        // that cannot hear it fails on its own.
        if world > 1 {
            let _ = self.broadcast(Some(&decision), step);
        }
        outcome
    }

    /// Waits until every rank has reached this point (or fails as [`Control::agree`]).
    pub fn barrier(&mut self, step: &str) -> Result<()> {
        self.agree(Ok(()), step, || Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Duration = Duration::from_secs(5);

    fn listener() -> (TcpListener, String) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        (l, addr)
    }

    fn comm_error(r: Result<impl Sized>) -> String {
        match r {
            Err(Error::Communication(m)) => m,
            Err(e) => panic!("expected a communication error, got {e}"),
            Ok(_) => panic!("expected a communication error, got success"),
        }
    }

    /// Four ranks as threads: all get rank 0's payload, gather and broadcast reach
    /// everyone in rank order, and an agreement of all commits once.
    #[test]
    fn ranks_exchange_payload_gather_and_agree() {
        let (l, addr) = listener();
        let world = 4;
        let peers: Vec<_> = (1..world)
            .map(|r| {
                let addr = addr.clone();
                std::thread::spawn(move || {
                    let (mut c, payload) = Control::connect(&addr, r, world, T).unwrap();
                    assert_eq!(c.rank(), r);
                    assert!(c.gather(&[r as u8; 3], "gather").unwrap().is_none());
                    let b = c.broadcast(None, "broadcast").unwrap();
                    c.agree(Ok(()), "agree", || panic!("only rank 0 commits")).unwrap();
                    (payload, b)
                })
            })
            .collect();
        let mut root = Control::root(l, world, T, b"the id").unwrap();
        let all = root.gather(&[0; 3], "gather").unwrap().unwrap();
        assert_eq!(all, (0..world).map(|r| vec![r as u8; 3]).collect::<Vec<_>>());
        root.broadcast(Some(b"hello"), "broadcast").unwrap();
        let mut commits = 0;
        root.agree(Ok(()), "agree", || {
            commits += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(commits, 1);
        for p in peers {
            let (payload, b) = p.join().unwrap();
            assert_eq!(payload, b"the id");
            assert_eq!(b, b"hello");
        }
    }

    /// A rank that never comes: rank 0 fails within the timeout, naming it.
    #[test]
    fn a_missing_rank_fails_rank_0_in_time() {
        let (l, addr) = listener();
        let peer = std::thread::spawn(move || Control::connect(&addr, 1, 3, T).map(|_| ()));
        let t = Instant::now();
        let m = comm_error(Control::root(l, 3, Duration::from_millis(400), b"id"));
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        assert!(m.contains("ranks [2] did not connect"), "{m}");
        // Rank 1 was accepted, then rank 0 gave up: it sees the connection close.
        let m = comm_error(peer.join().unwrap());
        assert!(m.contains("rank 1 of 3") && m.contains("closed the connection"), "{m}");
    }

    /// No rank 0 at all: a rank fails within the timeout.
    #[test]
    fn no_rank_0_fails_in_time() {
        let (l, addr) = listener();
        drop(l);
        let t = Instant::now();
        let m = comm_error(Control::connect(&addr, 1, 2, Duration::from_millis(300)));
        assert!(t.elapsed() < Duration::from_secs(3));
        assert!(m.contains("no rank 0 at"), "{m}");
    }

    /// A rank that dies after the rendezvous (its connection closes) fails the others'
    /// next step at once, and an agreement with it commits nothing.
    #[test]
    fn a_rank_that_dies_fails_the_agreement() {
        let (l, addr) = listener();
        let world = 3;
        let a = addr.clone();
        let dies = std::thread::spawn(move || {
            let (c, _) = Control::connect(&a, 1, world, T).unwrap();
            drop(c); // dies: its end of the connection closes
        });
        let lives = std::thread::spawn(move || {
            let (mut c, _) = Control::connect(&addr, 2, world, T).unwrap();
            c.agree(Ok(()), "writing the output", || Ok(()))
        });
        let mut root = Control::root(l, world, T, b"id").unwrap();
        dies.join().unwrap();
        let t = Instant::now();
        let mut committed = false;
        let m = comm_error(root.agree(Ok(()), "writing the output", || {
            committed = true;
            Ok(())
        }));
        assert!(t.elapsed() < T);
        assert!(!committed);
        assert!(m.contains("rank 0 of 3: writing the output: rank 1 closed the connection"), "{m}");
        let m = comm_error(lives.join().unwrap());
        assert!(m.contains("rank 2 of 3") && m.contains("rank 1 closed"), "{m}");
    }

    /// A rank that hangs (connected, silent): the others fail after the timeout.
    #[test]
    fn a_silent_rank_times_out() {
        let (l, addr) = listener();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let hangs = std::thread::spawn(move || {
            let (c, _) = Control::connect(&addr, 1, 2, T).unwrap();
            rx.recv().unwrap(); // holds the connection open without a word
            drop(c);
        });
        let mut root = Control::root(l, 2, Duration::from_millis(300), b"id").unwrap();
        let t = Instant::now();
        let m = comm_error(root.barrier("the barrier"));
        let waited = t.elapsed();
        assert!(waited >= Duration::from_millis(250) && waited < Duration::from_secs(3), "{waited:?}");
        assert!(m.contains("rank 1 did not answer"), "{m}");
        tx.send(()).unwrap();
        hangs.join().unwrap();
    }

    /// A rank that fails its share reports why; nothing is committed and every rank
    /// gets the reason.
    #[test]
    fn a_failed_vote_is_everyones_error() {
        let (l, addr) = listener();
        let peer = std::thread::spawn(move || {
            let (mut c, _) = Control::connect(&addr, 1, 2, T).unwrap();
            c.agree(Err(Error::BadInput("disk full".into())), "writing", || Ok(()))
        });
        let mut root = Control::root(l, 2, T, b"id").unwrap();
        let m = comm_error(root.agree(Ok(()), "writing", || panic!("nothing is committed")));
        assert!(m.contains("rank 1 failed: disk full"), "{m}");
        match peer.join().unwrap() {
            Err(Error::BadInput(m)) => assert_eq!(m, "disk full"),
            other => panic!("{other:?}"),
        }
    }

    /// Rank 0 refuses a second process claiming the same rank and a different world.
    #[test]
    fn duplicate_ranks_and_other_worlds_are_refused() {
        let (l, addr) = listener();
        let a = addr.clone();
        let one = std::thread::spawn(move || Control::connect(&a, 1, 3, T).map(|_| ()));
        std::thread::sleep(Duration::from_millis(100));
        let two = std::thread::spawn(move || Control::connect(&addr, 1, 3, T).map(|_| ()));
        let m = comm_error(Control::root(l, 3, T, b"id"));
        assert!(m.contains("two processes say they are rank 1"), "{m}");
        let _ = (one.join(), two.join());

        let (l, addr) = listener();
        let other = std::thread::spawn(move || Control::connect(&addr, 1, 4, T).map(|_| ()));
        let m = comm_error(Control::root(l, 3, T, b"id"));
        assert!(m.contains("says the world has 4 ranks"), "{m}");
        let _ = other.join();
    }
}
