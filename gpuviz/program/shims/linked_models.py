"""gpuviz's models of library device functions that numba kernels link (`@cuda.jit(link=...)`), written
in the kernel language itself.

On a GPU these calls run code that nvmath-python and CCCL generate (cuBLASDx, CUB), which no simulator
can read. The simulator runs these models instead: each does what the library documents for the whole
block, through ordinary loads, stores and barriers, so its accesses are recorded, raced, timed and
replayed like the user's own (the rewrite gives them the line of the call). What they cost is what the
simulator charges for those operations: a model, not the library's instruction stream (docs/simulator.md).

Every model is made per library object, with that object's sizes as constants (closures: numba, too,
specialises the library call on its sizes).
"""

from __future__ import annotations

from gpuviz.program.shims import cuda


@cuda.jit(device=True)
def thread_in_block():
    """The thread's linear number in its block (x fastest), as CUB and cuBLASDx number threads."""
    return cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)


@cuda.jit(device=True)
def threads_in_block():
    return cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z


@cuda.jit(device=True)
def element(a, flat):
    """Element `flat` of an array in memory order: the libraries take a pointer, not numba's shape.
    (One branch per rank, each alone: a lane-wise engine evaluates what follows a return.)"""
    if a.ndim == 1:
        value = a[flat]
    elif a.ndim == 2:
        value = a[flat // a.shape[1], flat % a.shape[1]]
    else:
        value = a[flat // (a.shape[1] * a.shape[2]), flat // a.shape[2] % a.shape[1], flat % a.shape[2]]
    return value


@cuda.jit(device=True)
def set_element(a, flat, value):
    if a.ndim == 1:
        a[flat] = value
    elif a.ndim == 2:
        a[flat // a.shape[1], flat % a.shape[1]] = value
    else:
        a[flat // (a.shape[1] * a.shape[2]), flat // a.shape[2] % a.shape[1], flat % a.shape[2]] = value


def matmul_model(m: int, n: int, k: int, strides: tuple[tuple[int, int], ...]):
    """cuBLASDx's block GEMM, C = alpha * A @ B + beta * C, A m x k, B k x n, C m x n, each at
    `row * strides[x][0] + column * strides[x][1]` of its shared array. The threads of the block take C's
    elements in turn (thread t: elements t, t + threads, ...), each summing its k products; with beta == 0
    C is written without being read, as BLAS defines it."""
    (a_row, a_col), (b_row, b_col), (c_row, c_col) = strides
    size = m * n

    def nvmath_device_matmul(alpha, a, b, beta, c):
        for e in range(thread_in_block(), size, threads_in_block()):
            i = e % m
            j = e // m
            total = 0.0
            for p in range(k):
                total += element(a, i * a_row + p * a_col) * element(b, p * b_row + j * b_col)
            at = i * c_row + j * c_col
            if beta == 0:
                set_element(c, at, alpha * total)
            else:
                set_element(c, at, alpha * total + beta * element(c, at))

    return nvmath_device_matmul


def block_reduce_models(threads: int, items: int, dtype, op):
    """CUB's BlockReduce: every thread gives `items` values (a value, or a local array of them); thread 0
    gets the block's result, the others an undefined value (the model gives them 0). The temporary
    storage is a shared array of one slot per item, as CUB keeps its own in shared memory; thread 0
    combines the slots in thread order after a barrier, and a barrier after it frees the storage.
    `op` is None for a sum. Returns {number of arguments: model}."""
    slots = threads * items

    def add(left, right):
        return left + right

    _combine = cuda.jit(device=True)(add) if op is None else _device(op)

    def cub_block_reduce(item):
        temp_storage = cuda.shared.array(slots, dtype)
        me = thread_in_block()
        _give(temp_storage, me, item)
        cuda.syncthreads()
        result = 0
        if me == 0:
            result = temp_storage[0]
            for s in range(1, slots):
                result = _combine(result, temp_storage[s])
        cuda.syncthreads()
        return result

    def cub_block_reduce_valid(item, num_valid):
        temp_storage = cuda.shared.array(slots, dtype)
        me = thread_in_block()
        if me < num_valid:
            temp_storage[me] = item
        cuda.syncthreads()
        result = 0
        if me == 0:
            result = temp_storage[0]
            for s in range(1, num_valid):
                result = _combine(result, temp_storage[s])
        cuda.syncthreads()
        return result

    def _give(temp_storage, me, item):
        if items == 1:
            temp_storage[me] = item
        else:
            for q in range(items):
                temp_storage[me * items + q] = item[q]

    _give = cuda.jit(device=True)(_give)
    models = {1: cub_block_reduce}
    if items == 1:
        models[2] = cub_block_reduce_valid
    return models


def _device(op):
    """The user's binary operator as numba compiles it inside the library call: a device function."""
    return op if hasattr(op, "py_func") else cuda.jit(device=True)(op)


def block_scan_models(threads: int, items: int, dtype, exclusive: bool):
    """CUB's BlockScan with addition, on one value per thread (returned) or on `items` values in a local
    array (written to the output array): the block's items in thread order, each replaced by the sum of
    the items up to it (inclusive) or before it (exclusive, 0 first). The model scans the threads' totals
    in a shared array by doubling steps (Hillis and Steele: log2(threads) steps, two barriers each),
    then each thread adds its prefix to its own items. Returns {number of arguments: model}."""
    steps = max(0, (threads - 1).bit_length())

    def scanned_total(temp_storage, me, total):
        temp_storage[me] = total
        cuda.syncthreads()
        distance = 1
        for _ in range(steps):
            value = temp_storage[me]
            if me >= distance:
                value = value + temp_storage[me - distance]
            cuda.syncthreads()
            temp_storage[me] = value
            cuda.syncthreads()
            distance *= 2
        before = 0
        if me > 0:
            before = temp_storage[me - 1]
        cuda.syncthreads()
        return before

    scanned_total = cuda.jit(device=True)(scanned_total)

    def cub_block_scan(item):
        temp_storage = cuda.shared.array(threads, dtype)
        before = scanned_total(temp_storage, thread_in_block(), item)
        if exclusive:
            return before
        return before + item

    def cub_block_scan_items(inputs, outputs):
        temp_storage = cuda.shared.array(threads, dtype)
        total = 0
        for q in range(items):
            total = total + inputs[q]
        running = scanned_total(temp_storage, thread_in_block(), total)
        for q in range(items):
            value = inputs[q]
            if exclusive:
                outputs[q] = running
                running = running + value
            else:
                running = running + value
                outputs[q] = running

    return {1: cub_block_scan} if items == 1 else {2: cub_block_scan_items}


def block_load_store_models(threads: int, items: int, striped: bool, store: bool):
    """CUB's BlockLoad and BlockStore, direct (thread t holds the block's items t * items ... t * items +
    items - 1) or striped (thread t holds items t, t + threads, ...): the tile starts at the array's first
    element. Returns {number of arguments: model}."""

    def place(me, q):
        return q * threads + me if striped else me * items + q

    place = cuda.jit(device=True)(place)

    def cub_block_load(src, dest):
        me = thread_in_block()
        for q in range(items):
            dest[q] = src[place(me, q)]

    def cub_block_store(dest, src):
        me = thread_in_block()
        for q in range(items):
            dest[place(me, q)] = src[q]

    return {2: cub_block_store if store else cub_block_load}
