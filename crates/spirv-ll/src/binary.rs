//! The word stream: endianness, the header, and the instructions, each with
//! the word offset it starts at (rspirv's parser decodes the operands).

use crate::error::{Error, Result};
use rspirv::binary::{parse_words, Consumer, ParseAction as Action, ParseState};
use rspirv::dr;
use rspirv::spirv;

pub(crate) const MAGIC: u32 = 0x0723_0203;

/// The SPIR-V versions taken: 1.0 to 1.6.
pub const VERSIONS: [(u8, u8); 7] = [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6)];

/// One instruction and where it starts.
#[derive(Debug, Clone)]
pub(crate) struct Inst {
    pub offset: usize,
    pub inst: dr::Instruction,
}

impl Inst {
    pub fn op(&self) -> spirv::Op {
        self.inst.class.opcode
    }

    pub fn err(&self, reason: impl Into<String>) -> Error {
        Error::new(self.offset, format!("Op{}", self.inst.class.opname), reason)
    }

    pub fn result_id(&self) -> Result<u32> {
        self.inst
            .result_id
            .ok_or_else(|| self.err("the result id is missing"))
    }

    pub fn result_type(&self) -> Result<u32> {
        self.inst
            .result_type
            .ok_or_else(|| self.err("the result type is missing"))
    }

    pub fn len(&self) -> usize {
        self.inst.operands.len()
    }

    fn operand(&self, n: usize) -> Result<&dr::Operand> {
        self.inst
            .operands
            .get(n)
            .ok_or_else(|| self.err(format!("operand {n} is missing")))
    }

    /// Operand `n` as an id (any id-like operand).
    pub fn id(&self, n: usize) -> Result<u32> {
        match self.operand(n)? {
            dr::Operand::IdRef(i) | dr::Operand::IdScope(i) | dr::Operand::IdMemorySemantics(i) => {
                Ok(*i)
            }
            other => Err(self.err(format!("operand {n} is {other:?}, not an id"))),
        }
    }

    /// Operands `from..` as ids.
    pub fn ids(&self, from: usize) -> Result<Vec<u32>> {
        (from..self.len()).map(|n| self.id(n)).collect()
    }

    /// Operand `n` as a 32-bit literal (also what rspirv decodes as an id
    /// in an extended instruction, whose literals it cannot know).
    pub fn literal(&self, n: usize) -> Result<u32> {
        match self.operand(n)? {
            dr::Operand::LiteralBit32(v)
            | dr::Operand::LiteralExtInstInteger(v)
            | dr::Operand::IdRef(v) => Ok(*v),
            other => Err(self.err(format!("operand {n} is {other:?}, not a 32-bit literal"))),
        }
    }

    pub fn string(&self, n: usize) -> Result<&str> {
        match self.operand(n)? {
            dr::Operand::LiteralString(s) => Ok(s),
            other => Err(self.err(format!("operand {n} is {other:?}, not a string"))),
        }
    }

    /// Operand `n`, if present.
    pub fn get(&self, n: usize) -> Option<&dr::Operand> {
        self.inst.operands.get(n)
    }
}

/// The module's words in the host's order, whatever order it was written in.
pub(crate) fn words(bytes: &[u8]) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(Error::header(format!(
            "{} bytes is not a whole number of words",
            bytes.len()
        )));
    }
    if bytes.len() < 20 {
        return Err(Error::header("shorter than the five words of the header"));
    }
    let little: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if little[0] == MAGIC {
        Ok(little)
    } else if little[0] == MAGIC.swap_bytes() {
        Ok(little.into_iter().map(u32::swap_bytes).collect())
    } else {
        Err(Error::header(format!(
            "magic number {:#010x} is not SPIR-V's {MAGIC:#010x}",
            little[0]
        )))
    }
}

/// The version a header word gives, if it is one of [`VERSIONS`].
fn version(word: u32) -> Option<(u8, u8)> {
    let (major, minor) = ((word >> 16) as u8, (word >> 8) as u8);
    (word & 0xff00_00ff == 0 && VERSIONS.contains(&(major, minor))).then_some((major, minor))
}

/// The header's checks: magic number, version, id bound, schema.
pub(crate) fn check_header_words(words: &[u32]) -> Result<(u8, u8)> {
    let v = version(words[1]).ok_or_else(|| {
        Error::header(format!(
            "version word {:#010x} is not SPIR-V 1.0 to 1.6",
            words[1]
        ))
    })?;
    if words[3] == 0 {
        return Err(Error::header("the id bound is 0"));
    }
    if words[4] != 0 {
        return Err(Error::header("the schema word is not 0"));
    }
    Ok(v)
}

/// Checks what `clCreateProgramWithIL` checks: a whole number of words, a
/// SPIR-V header of a version taken.
pub fn check_header(bytes: &[u8]) -> std::result::Result<(u8, u8), Error> {
    check_header_words(&words(bytes)?)
}

/// Where each instruction starts, and that the last one ends at the end.
fn offsets(words: &[u32]) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        let name = || {
            spirv::Op::from_u32(opcode)
                .map(|o| format!("Op{o:?}"))
                .unwrap_or_else(|| format!("opcode {opcode}"))
        };
        if count == 0 {
            return Err(Error::new(at, name(), "the word count is 0"));
        }
        if at + count > words.len() {
            return Err(Error::new(
                at,
                name(),
                format!(
                    "the instruction has {count} words but the module ends after {}",
                    words.len() - at
                ),
            ));
        }
        out.push(at);
        at += count;
    }
    Ok(out)
}

struct Collect {
    insts: Vec<dr::Instruction>,
}

impl Consumer for Collect {
    fn initialize(&mut self) -> Action {
        Action::Continue
    }
    fn finalize(&mut self) -> Action {
        Action::Continue
    }
    fn consume_header(&mut self, _: dr::ModuleHeader) -> Action {
        Action::Continue
    }
    fn consume_instruction(&mut self, inst: dr::Instruction) -> Action {
        self.insts.push(inst);
        Action::Continue
    }
}

/// A parsed module: its id bound and instructions.
pub(crate) struct Parsed {
    pub bound: u32,
    pub insts: Vec<Inst>,
}

pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed> {
    let words = words(bytes)?;
    check_header_words(&words)?;
    let offsets = offsets(&words)?;
    let mut c = Collect { insts: Vec::new() };
    if let Err(e) = parse_words(&words, &mut c) {
        // The instruction the parser stopped at is the one after those it gave.
        let at = offsets.get(c.insts.len()).copied().unwrap_or(words.len());
        let opcode = words
            .get(at)
            .and_then(|w| spirv::Op::from_u32(w & 0xffff))
            .map(|o| format!("Op{o:?}"))
            .unwrap_or_else(|| "instruction".into());
        return Err(Error::new(at, opcode, describe(&e)));
    }
    if c.insts.len() != offsets.len() {
        return Err(Error::new(
            words.len(),
            "module",
            "the parser read a different number of instructions than the word stream holds",
        ));
    }
    let insts = c
        .insts
        .into_iter()
        .zip(offsets)
        .map(|(inst, offset)| Inst { offset, inst })
        .collect();
    Ok(Parsed {
        bound: words[3],
        insts,
    })
}

fn describe(e: &ParseState) -> String {
    match e {
        ParseState::OpcodeUnknown(_, _, op) => format!("unknown opcode {op}"),
        ParseState::OperandExpected(..) => "an operand is missing".into(),
        ParseState::OperandExceeded(..) => "there are more operands than the opcode takes".into(),
        ParseState::TypeUnsupported(..) => {
            "the literal's type is not a declared integer or float type".into()
        }
        ParseState::SpecConstantOpIntegerIncorrect(..) => {
            "OpSpecConstantOp names an opcode it cannot take".into()
        }
        ParseState::OperandError(e) => format!("an operand does not decode: {e}"),
        other => other.to_string(),
    }
}
