"""A plain, slow, obviously-correct implementation of the rules for differential tests.

Counts every group by flood fill after every candidate placement. Shares no
code with odd_env beyond the geometry's neighbour table.
"""

from __future__ import annotations


def count_groups(board, nbr, colour):
    seen = set()
    groups = 0
    for x, v in enumerate(board):
        if v != colour or x in seen:
            continue
        groups += 1
        stack = [x]
        seen.add(x)
        while stack:
            y = stack.pop()
            for z in nbr[y]:
                if z >= 0 and board[z] == colour and z not in seen:
                    seen.add(z)
                    stack.append(z)
    return groups


def total(board, nbr):
    return count_groups(board, nbr, 1) + count_groups(board, nbr, 2)


def legal_mask(board, nbr, to_move, step, first_turn):
    """The legal mask (list of 0/1) of docs/rules/xodd_yodd.md section 3, by brute force.

    ``board`` holds 0 empty, 1 black, 2 white, 3 off-board; ``to_move`` 0/1;
    ``step`` 1 or 2.
    """
    board = list(board)
    n = len(board)
    nbr = [list(r) for r in nbr]
    own, opp = to_move + 1, 2 - to_move
    mask = [0] * (2 * n + 1)
    empties = [x for x in range(n) if board[x] == 0]
    t0 = total(board, nbr)
    if first_turn:
        for x in empties:
            mask[x] = mask[n + x] = 1
        return mask
    if step == 2:
        mask[2 * n] = int(t0 % 2 == 1)
        for x in empties:
            for off, c in ((0, own), (n, opp)):
                board[x] = c
                mask[off + x] = int(total(board, nbr) % 2 == 1)
                board[x] = 0
        return mask
    mask[2 * n] = 1
    for x in empties:
        for off, c in ((0, own), (n, opp)):
            board[x] = c
            t1 = total(board, nbr)
            if t1 % 2 == 1:
                mask[off + x] = 1
            else:
                found = False
                for y in empties:
                    if y == x:
                        continue
                    for c2 in (1, 2):
                        board[y] = c2
                        if total(board, nbr) % 2 == 1:
                            found = True
                        board[y] = 0
                        if found:
                            break
                    if found:
                        break
                mask[off + x] = int(found)
            board[x] = 0
    return mask
