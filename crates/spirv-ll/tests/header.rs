//! `check_header`, what `clCreateProgramWithIL` asks: a whole number of
//! words, the magic number in either byte order, a version taken.

use spirv_ll::check_header;

fn header(version: u32) -> Vec<u8> {
    [0x0723_0203u32, version, 0, 10, 0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

#[test]
fn every_version_from_1_0_to_1_6_is_taken() {
    for minor in 0..=6 {
        assert_eq!(
            check_header(&header(0x0001_0000 | minor << 8)),
            Ok((1, minor as u8))
        );
    }
}

#[test]
fn a_big_endian_module_is_taken() {
    let big: Vec<u8> = header(0x0001_0500)
        .chunks_exact(4)
        .flat_map(|w| [w[3], w[2], w[1], w[0]])
        .collect();
    assert_eq!(check_header(&big), Ok((1, 5)));
}

#[test]
fn what_is_not_a_spirv_header_is_refused_with_the_reason() {
    let reason = |b: &[u8]| check_header(b).unwrap_err().reason;
    assert!(reason(&header(0x0001_0000)[..19]).contains("whole number of words"));
    assert!(reason(&header(0x0001_0000)[..16]).contains("header"));
    let mut magic = header(0x0001_0000);
    magic[0] = 0;
    assert!(reason(&magic).contains("magic number"));
    assert!(reason(&header(0x0001_0700)).contains("version"));
    assert!(reason(&header(0x0002_0000)).contains("version"));
    let mut bound = header(0x0001_0000);
    bound[12] = 0;
    assert!(reason(&bound).contains("bound"));
    let e = check_header(&magic).unwrap_err();
    assert_eq!((e.word, e.opcode.as_str()), (0, "header"));
}
