//! Errors of the value layer.
//!
//! Every failure carries a [`ErrorClass`] (which Neo4j status code a client sees) and an
//! [`ErrorDetail`] (the name the openCypher TCK checks), because the two vary independently:
//! `toBoolean(1.0)` is a `TypeError` with detail `InvalidArgumentValue`, `range(1, 2, 0)` an
//! `ArgumentError` with detail `NumberOutOfRange`.

use std::fmt;

use quiver_status::Status;

/// The class of an error: decides the Neo4j status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// An operand or argument of the wrong type.
    TypeError,
    /// An argument of the right type but an unacceptable value.
    ArgumentError,
    /// Integer overflow or division by zero.
    ArithmeticError,
    /// Text that cannot be parsed (temporal strings): Neo4j reports these as syntax errors.
    SyntaxError,
    /// A function that does not exist or is called with the wrong number of arguments.
    SemanticError,
}

impl ErrorClass {
    /// The Neo4j status clients see for this class.
    pub fn status_code(self) -> Status {
        match self {
            ErrorClass::TypeError => Status::TypeError,
            ErrorClass::ArgumentError => Status::ArgumentError,
            ErrorClass::ArithmeticError => Status::ArithmeticError,
            ErrorClass::SyntaxError => Status::SyntaxError,
            ErrorClass::SemanticError => Status::SemanticError,
        }
    }

    /// The error type name as the TCK writes it (`TypeError`, `ArgumentError`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::TypeError => "TypeError",
            ErrorClass::ArgumentError => "ArgumentError",
            ErrorClass::ArithmeticError => "ArithmeticError",
            ErrorClass::SyntaxError => "SyntaxError",
            ErrorClass::SemanticError => "SemanticError",
        }
    }
}

/// What exactly went wrong, named as the TCK names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorDetail {
    InvalidArgumentType,
    InvalidArgumentValue,
    NumberOutOfRange,
    NegativeIntegerArgument,
    IntegerOverflow,
    DivisionByZero,
    InvalidTemporalString,
    UnknownFunction,
    InvalidNumberOfArguments,
}

impl ErrorDetail {
    pub fn name(self) -> &'static str {
        match self {
            ErrorDetail::InvalidArgumentType => "InvalidArgumentType",
            ErrorDetail::InvalidArgumentValue => "InvalidArgumentValue",
            ErrorDetail::NumberOutOfRange => "NumberOutOfRange",
            ErrorDetail::NegativeIntegerArgument => "NegativeIntegerArgument",
            ErrorDetail::IntegerOverflow => "IntegerOverflow",
            ErrorDetail::DivisionByZero => "DivisionByZero",
            ErrorDetail::InvalidTemporalString => "InvalidTemporalString",
            ErrorDetail::UnknownFunction => "UnknownFunction",
            ErrorDetail::InvalidNumberOfArguments => "InvalidNumberOfArguments",
        }
    }
}

impl fmt::Display for ErrorDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error raised while computing with values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ValueError {
    pub class: ErrorClass,
    pub detail: ErrorDetail,
    /// A message for humans; the class and detail are what programs match on.
    pub message: String,
}

impl ValueError {
    pub fn new(class: ErrorClass, detail: ErrorDetail, message: impl Into<String>) -> Self {
        ValueError {
            class,
            detail,
            message: message.into(),
        }
    }

    /// A value of a type the operation does not accept.
    pub fn invalid_type(message: impl Into<String>) -> Self {
        Self::new(
            ErrorClass::TypeError,
            ErrorDetail::InvalidArgumentType,
            message,
        )
    }

    /// A value the operation cannot convert or accept, reported as a type error (as the TCK
    /// expects for conversion functions).
    pub fn invalid_value_type(message: impl Into<String>) -> Self {
        Self::new(
            ErrorClass::TypeError,
            ErrorDetail::InvalidArgumentValue,
            message,
        )
    }

    /// An argument of an acceptable type but an invalid value.
    pub fn invalid_value(message: impl Into<String>) -> Self {
        Self::new(
            ErrorClass::ArgumentError,
            ErrorDetail::InvalidArgumentValue,
            message,
        )
    }

    /// An argument outside the range the operation accepts.
    pub fn out_of_range(message: impl Into<String>) -> Self {
        Self::new(
            ErrorClass::ArgumentError,
            ErrorDetail::NumberOutOfRange,
            message,
        )
    }

    pub fn negative_argument(message: impl Into<String>) -> Self {
        Self::new(
            ErrorClass::ArgumentError,
            ErrorDetail::NegativeIntegerArgument,
            message,
        )
    }

    pub fn overflow(message: impl Into<String>) -> Self {
        Self::new(
            ErrorClass::ArithmeticError,
            ErrorDetail::IntegerOverflow,
            message,
        )
    }

    pub fn division_by_zero() -> Self {
        Self::new(
            ErrorClass::ArithmeticError,
            ErrorDetail::DivisionByZero,
            "/ by zero",
        )
    }

    /// Text that is not a valid temporal value of the requested type.
    pub fn temporal_parse(type_name: &str, text: &str) -> Self {
        // Echo at most a bounded prefix: the text came from a client.
        let shown: String = text.chars().take(ECHO_CHARS_MAX).collect();
        Self::new(
            ErrorClass::SyntaxError,
            ErrorDetail::InvalidTemporalString,
            format!("Text cannot be parsed to a {type_name}: '{shown}'"),
        )
    }

    pub fn unknown_function(name: &str) -> Self {
        let shown: String = name.chars().take(ECHO_CHARS_MAX).collect();
        Self::new(
            ErrorClass::SemanticError,
            ErrorDetail::UnknownFunction,
            format!("Unknown function '{shown}'"),
        )
    }

    pub fn arity(name: &str, min: usize, max: usize, got: usize) -> Self {
        let expected = if min == max {
            format!("{min}")
        } else if max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min} to {max}")
        };
        Self::new(
            ErrorClass::SemanticError,
            ErrorDetail::InvalidNumberOfArguments,
            format!("Function '{name}' expects {expected} argument(s), got {got}"),
        )
    }

    /// The Neo4j status for this error.
    pub fn status_code(&self) -> Status {
        self.class.status_code()
    }
}

/// How many characters of client input an error message repeats.
const ECHO_CHARS_MAX: usize = 64;

/// Shorthand for the result of value operations.
pub type Result<T, E = ValueError> = std::result::Result<T, E>;
