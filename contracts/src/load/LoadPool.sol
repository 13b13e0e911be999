// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice The two calls of an ERC-20 the pool makes.
interface ILoadPoolToken {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @title LoadPool
/// @notice A constant-product pool of two tokens (Uniswap V2's x * y = k with its 0.3 % fee) for the load
/// generator's swaps: each swap pulls the input with transferFrom, pays the output with transfer and writes both
/// reserves, the storage and call pattern of a mainnet DEX swap. Liquidity is added by anyone and never withdrawn.
contract LoadPool {
    address public immutable token0;
    address public immutable token1;
    uint112 public reserve0;
    uint112 public reserve1;
    uint256 public swaps;

    event Sync(uint112 reserve0, uint112 reserve1);
    event Swap(address indexed sender, bool zeroForOne, uint256 amountIn, uint256 amountOut);

    error InsufficientOutput(uint256 amountOut, uint256 minOut);
    error EmptyPool();
    error ReserveOverflow();
    error TransferFailed();

    constructor(address token0_, address token1_) {
        token0 = token0_;
        token1 = token1_;
    }

    function getReserves() external view returns (uint112, uint112) {
        return (reserve0, reserve1);
    }

    /// @notice Adds `amount0` of token0 and `amount1` of token1 (pulled with transferFrom) to the reserves.
    function addLiquidity(uint256 amount0, uint256 amount1) external {
        _pull(token0, amount0);
        _pull(token1, amount1);
        _sync(uint256(reserve0) + amount0, uint256(reserve1) + amount1);
    }

    /// @notice The output of `amountIn` in the given direction at the current reserves.
    function quote(bool zeroForOne, uint256 amountIn) public view returns (uint256) {
        (uint256 reserveIn, uint256 reserveOut) = zeroForOne ? (reserve0, reserve1) : (reserve1, reserve0);
        if (reserveIn == 0 || reserveOut == 0) revert EmptyPool();
        uint256 inWithFee = amountIn * 997;
        return (inWithFee * reserveOut) / (reserveIn * 1000 + inWithFee);
    }

    /// @notice Swaps `amountIn` of one token for at least `minOut` of the other.
    function swap(bool zeroForOne, uint256 amountIn, uint256 minOut) external returns (uint256 amountOut) {
        amountOut = quote(zeroForOne, amountIn);
        if (amountOut < minOut) revert InsufficientOutput(amountOut, minOut);
        (address tokenIn, address tokenOut) = zeroForOne ? (token0, token1) : (token1, token0);
        _pull(tokenIn, amountIn);
        if (!ILoadPoolToken(tokenOut).transfer(msg.sender, amountOut)) revert TransferFailed();
        if (zeroForOne) _sync(uint256(reserve0) + amountIn, uint256(reserve1) - amountOut);
        else _sync(uint256(reserve0) - amountOut, uint256(reserve1) + amountIn);
        swaps += 1;
        emit Swap(msg.sender, zeroForOne, amountIn, amountOut);
    }

    function _pull(address token, uint256 amount) private {
        if (!ILoadPoolToken(token).transferFrom(msg.sender, address(this), amount)) revert TransferFailed();
    }

    function _sync(uint256 balance0, uint256 balance1) private {
        if (balance0 > type(uint112).max || balance1 > type(uint112).max) revert ReserveOverflow();
        reserve0 = uint112(balance0);
        reserve1 = uint112(balance1);
        emit Sync(reserve0, reserve1);
    }
}
