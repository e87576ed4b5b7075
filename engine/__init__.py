"""Pure, synchronous Nanjing Mahjong engine: tiles, hands, presets, scoring, settlement, table."""
