//===- TesselDialect.h - Tessel dialect ------------------------*- C++ -*-===//
#ifndef TESSEL_DIALECT_TESSELDIALECT_H
#define TESSEL_DIALECT_TESSELDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialects/Tessel/TesselDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tessel/TesselAttrs.h.inc"

#endif // TESSEL_DIALECT_TESSELDIALECT_H
