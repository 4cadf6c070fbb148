package onnx

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The field numbers of the ONNX messages this package writes, from
// onnx/onnx.proto (proto2; every field used here is optional or repeated).
const (
	modelIRVersion     protowire.Number = 1  // ModelProto.ir_version, int64
	modelProducerName  protowire.Number = 2  // ModelProto.producer_name
	modelProducerVer   protowire.Number = 3  // ModelProto.producer_version
	modelDocString     protowire.Number = 6  // ModelProto.doc_string
	modelGraph         protowire.Number = 7  // ModelProto.graph, GraphProto
	modelOpsetImport   protowire.Number = 8  // ModelProto.opset_import, repeated OperatorSetIdProto
	modelMetadataProps protowire.Number = 14 // ModelProto.metadata_props, repeated StringStringEntryProto

	opsetDomain  protowire.Number = 1 // OperatorSetIdProto.domain
	opsetVersion protowire.Number = 2 // OperatorSetIdProto.version, int64

	entryKey   protowire.Number = 1 // StringStringEntryProto.key
	entryValue protowire.Number = 2 // StringStringEntryProto.value

	graphNode        protowire.Number = 1  // GraphProto.node, repeated NodeProto
	graphName        protowire.Number = 2  // GraphProto.name
	graphInitializer protowire.Number = 5  // GraphProto.initializer, repeated TensorProto
	graphDocString   protowire.Number = 10 // GraphProto.doc_string
	graphInput       protowire.Number = 11 // GraphProto.input, repeated ValueInfoProto
	graphOutput      protowire.Number = 12 // GraphProto.output, repeated ValueInfoProto

	nodeInput  protowire.Number = 1 // NodeProto.input, repeated string
	nodeOutput protowire.Number = 2 // NodeProto.output, repeated string
	nodeName   protowire.Number = 3 // NodeProto.name
	nodeOpType protowire.Number = 4 // NodeProto.op_type
	nodeAttr   protowire.Number = 5 // NodeProto.attribute, repeated AttributeProto

	attrName protowire.Number = 1  // AttributeProto.name
	attrInt  protowire.Number = 3  // AttributeProto.i, int64
	attrInts protowire.Number = 8  // AttributeProto.ints, repeated int64
	attrType protowire.Number = 20 // AttributeProto.type, int32 (AttributeType enum)

	tensorDims     protowire.Number = 1 // TensorProto.dims, repeated int64
	tensorDataType protowire.Number = 2 // TensorProto.data_type, int32 (DataType enum)
	tensorName     protowire.Number = 8 // TensorProto.name
	tensorRawData  protowire.Number = 9 // TensorProto.raw_data, little-endian bytes

	valueName      protowire.Number = 1 // ValueInfoProto.name
	valueType      protowire.Number = 2 // ValueInfoProto.type, TypeProto
	valueDocString protowire.Number = 3 // ValueInfoProto.doc_string

	typeTensor protowire.Number = 1 // TypeProto.tensor_type, TypeProto.Tensor

	tensorTypeElem  protowire.Number = 1 // TypeProto.Tensor.elem_type, int32
	tensorTypeShape protowire.Number = 2 // TypeProto.Tensor.shape, TensorShapeProto

	shapeDim protowire.Number = 1 // TensorShapeProto.dim, repeated Dimension

	dimValue protowire.Number = 1 // TensorShapeProto.Dimension.dim_value, int64
	dimParam protowire.Number = 2 // TensorShapeProto.Dimension.dim_param, string
)

// The TensorProto.DataType values this package writes.
const (
	dataTypeFloat = 1 // FLOAT, float32
	dataTypeInt64 = 7 // INT64
)

// The AttributeProto.AttributeType values this package writes.
const (
	attrTypeInt  = 2 // INT: one int64 in field i
	attrTypeInts = 7 // INTS: a list of int64 in field ints
)

// message is one protobuf message being written, in wire format.
type message []byte

// str appends string field num.
func (m message) str(num protowire.Number, s string) message {
	m = protowire.AppendTag(m, num, protowire.BytesType)
	return protowire.AppendString(m, s)
}

// bytes appends bytes field num.
func (m message) bytes(num protowire.Number, b []byte) message {
	m = protowire.AppendTag(m, num, protowire.BytesType)
	return protowire.AppendBytes(m, b)
}

// int appends integer field num (int32 and int64 share the varint
// encoding; negative values take ten bytes, as protobuf specifies).
func (m message) int(num protowire.Number, v int64) message {
	m = protowire.AppendTag(m, num, protowire.VarintType)
	return protowire.AppendVarint(m, uint64(v))
}

// sub appends the embedded message sub as field num.
func (m message) sub(num protowire.Number, sub message) message {
	return m.bytes(num, sub)
}

// dim is one dimension of a value's shape: a fixed size, or a named
// symbolic one when param is set.
type dim struct {
	value int
	param string
}

// valueInfo is a ValueInfoProto: a float32 tensor named name of the given
// shape, with documentation.
func valueInfo(name, doc string, shape ...dim) message {
	var s message
	for _, d := range shape {
		var dm message
		if d.param != "" {
			dm = dm.str(dimParam, d.param)
		} else {
			dm = dm.int(dimValue, int64(d.value))
		}
		s = s.sub(shapeDim, dm)
	}
	tensorType := message(nil).int(tensorTypeElem, dataTypeFloat).sub(tensorTypeShape, s)
	typ := message(nil).sub(typeTensor, tensorType)
	return message(nil).str(valueName, name).sub(valueType, typ).str(valueDocString, doc)
}

// tensor is a TensorProto: the float32 constant name of shape dims, its
// row-major data in raw_data.
func tensor(name string, dims []int, data []float32) message {
	raw := make([]byte, 4*len(data))
	for i, x := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	return tensorHead(name, dims, dataTypeFloat).bytes(tensorRawData, raw)
}

// int64Tensor is a TensorProto: the int64 constant name of shape dims
// (indices, shapes, axes), its row-major data in raw_data.
func int64Tensor(name string, dims []int, data []int64) message {
	raw := make([]byte, 8*len(data))
	for i, x := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
	}
	return tensorHead(name, dims, dataTypeInt64).bytes(tensorRawData, raw)
}

// tensorHead is a TensorProto's dims, data type and name.
func tensorHead(name string, dims []int, dataType int64) message {
	var m message
	for _, d := range dims {
		m = m.int(tensorDims, int64(d))
	}
	return m.int(tensorDataType, dataType).str(tensorName, name)
}

// node is a NodeProto of the default (ai.onnx) domain with the given
// attributes (intAttr, intsAttr).
func node(opType, name string, inputs, outputs []string, attrs ...message) message {
	var m message
	for _, in := range inputs {
		m = m.str(nodeInput, in)
	}
	for _, out := range outputs {
		m = m.str(nodeOutput, out)
	}
	m = m.str(nodeName, name).str(nodeOpType, opType)
	for _, a := range attrs {
		m = m.sub(nodeAttr, a)
	}
	return m
}

// intAttr is an AttributeProto of type INT: name = v.
func intAttr(name string, v int64) message {
	return message(nil).str(attrName, name).int(attrType, attrTypeInt).int(attrInt, v)
}

// intsAttr is an AttributeProto of type INTS: name = vs, each value its
// own field (proto2's unpacked repeated encoding, as tensor dims are).
func intsAttr(name string, vs ...int64) message {
	m := message(nil).str(attrName, name).int(attrType, attrTypeInts)
	for _, v := range vs {
		m = m.int(attrInts, v)
	}
	return m
}

// entry is a StringStringEntryProto.
func entry(key, value string) message {
	return message(nil).str(entryKey, key).str(entryValue, value)
}
