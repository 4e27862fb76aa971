# fish completion for dents(1): its commands, and each command's options
# as its --help lists them (crates/dents-cli/tests/completions.rs checks
# that every one is offered).  Copy it to ~/.config/fish/completions/ or
# /usr/share/fish/vendor_completions.d/.

complete -c dents -n __fish_use_subcommand -f -a ls -d 'list directories as fast as the kernel hands them out'
complete -c dents -n __fish_use_subcommand -f -a find -d 'search trees with find expressions on all cores'
complete -c dents -n __fish_use_subcommand -f -a du -d 'disk usage as GNU du prints it, on all cores'
complete -c dents -n __fish_use_subcommand -f -a scan -d 'write a snapshot of trees to a Parquet file'
complete -c dents -n __fish_use_subcommand -f -a diff -d 'what changed between two snapshots'

# dents ls
complete -c dents -n '__fish_seen_subcommand_from ls' -l help -d 'Print help'
complete -c dents -n '__fish_seen_subcommand_from ls' -l version -d 'Print version information'
complete -c dents -n '__fish_seen_subcommand_from ls' -s a -l all -d 'Show entries starting with ., and . and ..'
complete -c dents -n '__fish_seen_subcommand_from ls' -s A -l almost-all -d 'Show entries starting with ., but not . and ..'
complete -c dents -n '__fish_seen_subcommand_from ls' -s f -d 'Same as -a -U'
complete -c dents -n '__fish_seen_subcommand_from ls' -s i -l inode -d 'Print each entrys inode number'
complete -c dents -n '__fish_seen_subcommand_from ls' -s F -l classify -d 'Append an indicator (one of */=@|) to entries'
complete -c dents -n '__fish_seen_subcommand_from ls' -l file-type -d 'Like -F, but without *'
complete -c dents -n '__fish_seen_subcommand_from ls' -s p -d 'Append / to directories'
complete -c dents -n '__fish_seen_subcommand_from ls' -l indicator-style -r -d 'Append indicators of style WORD none, slash (-p), file-type, classify (-F)'
complete -c dents -n '__fish_seen_subcommand_from ls' -s C -d 'List entries by columns'
complete -c dents -n '__fish_seen_subcommand_from ls' -s x -d 'List entries by lines instead of by columns'
complete -c dents -n '__fish_seen_subcommand_from ls' -s m -d 'Fill width with a comma separated list'
complete -c dents -n '__fish_seen_subcommand_from ls' -l format -r -d 'across -x, commas -m, horizontal -x, long -l, single-column -1, verbose -l, vertical -C'
complete -c dents -n '__fish_seen_subcommand_from ls' -s w -l width -r -d 'Set output width to COLS; 0 means no limit'
complete -c dents -n '__fish_seen_subcommand_from ls' -s T -l tabsize -r -d 'Assume tab stops at each COLS instead of 8'
complete -c dents -n '__fish_seen_subcommand_from ls' -l color -d 'Color the names from LS_COLORS always, auto, never (the default)'
complete -c dents -n '__fish_seen_subcommand_from ls' -s N -l literal -d 'Print entry names without quoting'
complete -c dents -n '__fish_seen_subcommand_from ls' -s b -l escape -d 'Print C-style escapes for nongraphic characters'
complete -c dents -n '__fish_seen_subcommand_from ls' -s Q -l quote-name -d 'Enclose entry names in double quotes'
complete -c dents -n '__fish_seen_subcommand_from ls' -l quoting-style -r -d 'Quote names in style WORD literal, locale, shell, shell-always, shell-escape, shell-escape-always, c, escape'
complete -c dents -n '__fish_seen_subcommand_from ls' -s q -l hide-control-chars -d 'Print ? instead of nongraphic characters'
complete -c dents -n '__fish_seen_subcommand_from ls' -l show-control-chars -d 'Show nongraphic characters as-is'
complete -c dents -n '__fish_seen_subcommand_from ls' -s R -l recursive -d 'List subdirectories recursively'
complete -c dents -n '__fish_seen_subcommand_from ls' -l group-directories-first -d 'Group directories before files'
complete -c dents -n '__fish_seen_subcommand_from ls' -s v -d 'Natural sort of (version) numbers within text'
complete -c dents -n '__fish_seen_subcommand_from ls' -s X -d 'Sort alphabetically by entry extension'
complete -c dents -n '__fish_seen_subcommand_from ls' -s 1 -d 'One entry per line'
complete -c dents -n '__fish_seen_subcommand_from ls' -s U -d 'Do not sort directory order (the default)'
complete -c dents -n '__fish_seen_subcommand_from ls' -s 0 -l zero -d 'End each entry with NUL, not newline'
complete -c dents -n '__fish_seen_subcommand_from ls' -l count -d 'Print only the number of entries'
complete -c dents -n '__fish_seen_subcommand_from ls' -l sort -r -d 'Sort by WORD none (-U), name, time (-t), size (-S), extension (-X), version (-v), width'
complete -c dents -n '__fish_seen_subcommand_from ls' -s t -d 'Sort by modification time, newest first'
complete -c dents -n '__fish_seen_subcommand_from ls' -s S -d 'Sort by size, largest first'
complete -c dents -n '__fish_seen_subcommand_from ls' -s r -l reverse -d 'Reverse the order'
complete -c dents -n '__fish_seen_subcommand_from ls' -s l -d 'Long listing format, as GNU ls -l'
complete -c dents -n '__fish_seen_subcommand_from ls' -s g -d 'Like -l, without the owner'
complete -c dents -n '__fish_seen_subcommand_from ls' -s o -d 'Like -l, without the group'
complete -c dents -n '__fish_seen_subcommand_from ls' -s n -l numeric-uid-gid -d 'Like -l, with numeric user and group ids'
complete -c dents -n '__fish_seen_subcommand_from ls' -s h -l human-readable -d 'With -l, sizes like 1K 234M 2G'
complete -c dents -n '__fish_seen_subcommand_from ls' -l time-style -r -d 'Time format with -l full-iso, long-iso, iso, locale, +FORMAT'
complete -c dents -n '__fish_seen_subcommand_from ls' -l full-time -d 'Like -l --time-style=full-iso'
complete -c dents -n '__fish_seen_subcommand_from ls' -s d -l directory -d 'List directories themselves, not their contents'
complete -c dents -n '__fish_seen_subcommand_from ls' -s j -l threads -r -d 'Threads to read one directory and stat its entries'

# dents du
complete -c dents -n '__fish_seen_subcommand_from du' -s 0 -l null -d 'end each output line with NUL, not newline'
complete -c dents -n '__fish_seen_subcommand_from du' -s a -l all -d 'write counts for all files, not just directories'
complete -c dents -n '__fish_seen_subcommand_from du' -l apparent-size -d 'print apparent sizes rather than device usage'
complete -c dents -n '__fish_seen_subcommand_from du' -s B -l block-size -r -d 'scale sizes by SIZE before printing them'
complete -c dents -n '__fish_seen_subcommand_from du' -s b -l bytes -d 'equivalent to --apparent-size --block-size=1'
complete -c dents -n '__fish_seen_subcommand_from du' -s c -l total -d 'produce a grand total'
complete -c dents -n '__fish_seen_subcommand_from du' -s D -l dereference-args -d 'dereference only symlinks listed on the command line'
complete -c dents -n '__fish_seen_subcommand_from du' -s d -l max-depth -r -d 'print the total for a directory (or file, with --all)'
complete -c dents -n '__fish_seen_subcommand_from du' -l files0-from -r -d 'summarize device usage of the NUL-terminated file'
complete -c dents -n '__fish_seen_subcommand_from du' -s H -d 'equivalent to --dereference-args (-D)'
complete -c dents -n '__fish_seen_subcommand_from du' -s h -l human-readable -d 'print sizes in human readable format (e.g., 1K 234M 2G)'
complete -c dents -n '__fish_seen_subcommand_from du' -l inodes -d 'list inode usage information instead of block usage'
complete -c dents -n '__fish_seen_subcommand_from du' -s k -d 'like --block-size=1K'
complete -c dents -n '__fish_seen_subcommand_from du' -s L -l dereference -d 'dereference all symbolic links'
complete -c dents -n '__fish_seen_subcommand_from du' -s l -l count-links -d 'count sizes many times if hard linked'
complete -c dents -n '__fish_seen_subcommand_from du' -s m -d 'like --block-size=1M'
complete -c dents -n '__fish_seen_subcommand_from du' -s P -l no-dereference -d 'dont follow any symbolic links (this is the default)'
complete -c dents -n '__fish_seen_subcommand_from du' -s S -l separate-dirs -d 'for directories do not include size of subdirectories'
complete -c dents -n '__fish_seen_subcommand_from du' -l si -d 'like -h, but use powers of 1000 not 1024'
complete -c dents -n '__fish_seen_subcommand_from du' -s s -l summarize -d 'display only a total for each argument'
complete -c dents -n '__fish_seen_subcommand_from du' -s t -l threshold -r -d 'exclude entries smaller than SIZE if positive,'
complete -c dents -n '__fish_seen_subcommand_from du' -l time -d 'show time of the last modification of any file in the'
complete -c dents -n '__fish_seen_subcommand_from du' -l time -r -d 'show time as WORD instead of modification time'
complete -c dents -n '__fish_seen_subcommand_from du' -l time-style -r -d 'show times using STYLE, which can be'
complete -c dents -n '__fish_seen_subcommand_from du' -s X -l exclude-from -r -d 'exclude files that match any pattern in FILE'
complete -c dents -n '__fish_seen_subcommand_from du' -l exclude -r -d 'exclude files that match PATTERN'
complete -c dents -n '__fish_seen_subcommand_from du' -s x -l one-file-system -d 'skip directories on different file systems'
complete -c dents -n '__fish_seen_subcommand_from du' -s o -l export -r -d 'also write the scan in ncdus JSON export format'
complete -c dents -n '__fish_seen_subcommand_from du' -s j -l threads -r -d 'walk on N threads (default eight per core)'
complete -c dents -n '__fish_seen_subcommand_from du' -l from -r -d 'the lines for the entries SNAPSHOT stored, not the live tree'
complete -c dents -n '__fish_seen_subcommand_from du' -l help -d 'display this help and exit'
complete -c dents -n '__fish_seen_subcommand_from du' -l version -d 'output version information and exit'

# dents find: words of one dash (fish's old-style options, -o)
complete -c dents -n '__fish_seen_subcommand_from find' -o H
complete -c dents -n '__fish_seen_subcommand_from find' -o L
complete -c dents -n '__fish_seen_subcommand_from find' -o P
complete -c dents -n '__fish_seen_subcommand_from find' -o O0
complete -c dents -n '__fish_seen_subcommand_from find' -o O1
complete -c dents -n '__fish_seen_subcommand_from find' -o O2
complete -c dents -n '__fish_seen_subcommand_from find' -o O3
complete -c dents -n '__fish_seen_subcommand_from find' -o D -r
complete -c dents -n '__fish_seen_subcommand_from find' -o j -r
complete -c dents -n '__fish_seen_subcommand_from find' -o S -r
complete -c dents -n '__fish_seen_subcommand_from find' -o print
complete -c dents -n '__fish_seen_subcommand_from find' -o not
complete -c dents -n '__fish_seen_subcommand_from find' -o a
complete -c dents -n '__fish_seen_subcommand_from find' -o and
complete -c dents -n '__fish_seen_subcommand_from find' -o o
complete -c dents -n '__fish_seen_subcommand_from find' -o or
complete -c dents -n '__fish_seen_subcommand_from find' -o daystart
complete -c dents -n '__fish_seen_subcommand_from find' -o follow
complete -c dents -n '__fish_seen_subcommand_from find' -o nowarn
complete -c dents -n '__fish_seen_subcommand_from find' -o regextype -r
complete -c dents -n '__fish_seen_subcommand_from find' -o warn
complete -c dents -n '__fish_seen_subcommand_from find' -o depth
complete -c dents -n '__fish_seen_subcommand_from find' -o ignore_readdir_race
complete -c dents -n '__fish_seen_subcommand_from find' -o maxdepth -r
complete -c dents -n '__fish_seen_subcommand_from find' -o mindepth -r
complete -c dents -n '__fish_seen_subcommand_from find' -o mount
complete -c dents -n '__fish_seen_subcommand_from find' -o noignore_readdir_race
complete -c dents -n '__fish_seen_subcommand_from find' -o noleaf
complete -c dents -n '__fish_seen_subcommand_from find' -o xdev
complete -c dents -n '__fish_seen_subcommand_from find' -o files0-from -r
complete -c dents -n '__fish_seen_subcommand_from find' -o amin -r
complete -c dents -n '__fish_seen_subcommand_from find' -o anewer -r
complete -c dents -n '__fish_seen_subcommand_from find' -o atime -r
complete -c dents -n '__fish_seen_subcommand_from find' -o cmin -r
complete -c dents -n '__fish_seen_subcommand_from find' -o cnewer -r
complete -c dents -n '__fish_seen_subcommand_from find' -o ctime -r
complete -c dents -n '__fish_seen_subcommand_from find' -o empty
complete -c dents -n '__fish_seen_subcommand_from find' -o false
complete -c dents -n '__fish_seen_subcommand_from find' -o gid -r
complete -c dents -n '__fish_seen_subcommand_from find' -o group -r
complete -c dents -n '__fish_seen_subcommand_from find' -o ilname -r
complete -c dents -n '__fish_seen_subcommand_from find' -o iname -r
complete -c dents -n '__fish_seen_subcommand_from find' -o inum -r
complete -c dents -n '__fish_seen_subcommand_from find' -o ipath -r
complete -c dents -n '__fish_seen_subcommand_from find' -o iregex -r
complete -c dents -n '__fish_seen_subcommand_from find' -o iwholename -r
complete -c dents -n '__fish_seen_subcommand_from find' -o links -r
complete -c dents -n '__fish_seen_subcommand_from find' -o lname -r
complete -c dents -n '__fish_seen_subcommand_from find' -o mmin -r
complete -c dents -n '__fish_seen_subcommand_from find' -o mtime -r
complete -c dents -n '__fish_seen_subcommand_from find' -o name -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newer -r
complete -c dents -n '__fish_seen_subcommand_from find' -o neweraa -r
complete -c dents -n '__fish_seen_subcommand_from find' -o neweraB -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerac -r
complete -c dents -n '__fish_seen_subcommand_from find' -o neweram -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerat -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerBa -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerBB -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerBc -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerBm -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerBt -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerca -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newercB -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newercc -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newercm -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerct -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newerma -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newermB -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newermc -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newermm -r
complete -c dents -n '__fish_seen_subcommand_from find' -o newermt -r
complete -c dents -n '__fish_seen_subcommand_from find' -o nogroup
complete -c dents -n '__fish_seen_subcommand_from find' -o nouser
complete -c dents -n '__fish_seen_subcommand_from find' -o path -r
complete -c dents -n '__fish_seen_subcommand_from find' -o perm -r
complete -c dents -n '__fish_seen_subcommand_from find' -o regex -r
complete -c dents -n '__fish_seen_subcommand_from find' -o readable
complete -c dents -n '__fish_seen_subcommand_from find' -o writable
complete -c dents -n '__fish_seen_subcommand_from find' -o executable
complete -c dents -n '__fish_seen_subcommand_from find' -o wholename -r
complete -c dents -n '__fish_seen_subcommand_from find' -o size -r
complete -c dents -n '__fish_seen_subcommand_from find' -o true
complete -c dents -n '__fish_seen_subcommand_from find' -o type -r
complete -c dents -n '__fish_seen_subcommand_from find' -o uid -r
complete -c dents -n '__fish_seen_subcommand_from find' -o used -r
complete -c dents -n '__fish_seen_subcommand_from find' -o user -r
complete -c dents -n '__fish_seen_subcommand_from find' -o xtype -r
complete -c dents -n '__fish_seen_subcommand_from find' -o samefile -r
complete -c dents -n '__fish_seen_subcommand_from find' -o fstype -r
complete -c dents -n '__fish_seen_subcommand_from find' -o context -r
complete -c dents -n '__fish_seen_subcommand_from find' -o delete
complete -c dents -n '__fish_seen_subcommand_from find' -o print0
complete -c dents -n '__fish_seen_subcommand_from find' -o prune
complete -c dents -n '__fish_seen_subcommand_from find' -o quit
complete -c dents -n '__fish_seen_subcommand_from find' -o exec -r
complete -c dents -n '__fish_seen_subcommand_from find' -o ok -r
complete -c dents -n '__fish_seen_subcommand_from find' -o execdir -r
complete -c dents -n '__fish_seen_subcommand_from find' -o okdir -r
complete -c dents -n '__fish_seen_subcommand_from find' -o printf -r
complete -c dents -n '__fish_seen_subcommand_from find' -o fprintf -r
complete -c dents -n '__fish_seen_subcommand_from find' -o ls
complete -c dents -n '__fish_seen_subcommand_from find' -o fls -r
complete -c dents -n '__fish_seen_subcommand_from find' -o fprint -r
complete -c dents -n '__fish_seen_subcommand_from find' -o fprint0 -r
complete -c dents -n '__fish_seen_subcommand_from find' -o s
complete -c dents -n '__fish_seen_subcommand_from find' -o exclude
complete -c dents -n '__fish_seen_subcommand_from find' -o hidden
complete -c dents -n '__fish_seen_subcommand_from find' -o nohidden
complete -c dents -n '__fish_seen_subcommand_from find' -o limit -r
complete -c dents -n '__fish_seen_subcommand_from find' -o color
complete -c dents -n '__fish_seen_subcommand_from find' -o nocolor
complete -c dents -n '__fish_seen_subcommand_from find' -o status
complete -c dents -n '__fish_seen_subcommand_from find' -o nostatus
complete -c dents -n '__fish_seen_subcommand_from find' -l from -r -F -d 'Evaluate on a snapshot (dents scan), not the tree'
complete -c dents -n '__fish_seen_subcommand_from find' -l help
complete -c dents -n '__fish_seen_subcommand_from find' -l version

# dents scan
complete -c dents -n '__fish_seen_subcommand_from scan' -s o -l output -r -d 'the file to write (replaced only once complete)'
complete -c dents -n '__fish_seen_subcommand_from scan' -s j -l threads -r -d 'walk on N threads'
complete -c dents -n '__fish_seen_subcommand_from scan' -s x -l one-file-system -d 'skip directories on other file systems'
complete -c dents -n '__fish_seen_subcommand_from scan' -s H -d 'follow symbolic links given as PATHs'
complete -c dents -n '__fish_seen_subcommand_from scan' -s L -d 'follow all symbolic links'
complete -c dents -n '__fish_seen_subcommand_from scan' -l names-only -d 'keep names, types, inodes and directories times'
complete -c dents -n '__fish_seen_subcommand_from scan' -l since -r -d 'refresh: take from the snapshot OLD the entries of each directory unchanged since'
complete -c dents -n '__fish_seen_subcommand_from scan' -l help -d 'display this help and exit'

# dents diff
complete -c dents -n '__fish_seen_subcommand_from diff' -l growth -d 'every directory whose disk usage changed, largest growth first'
complete -c dents -n '__fish_seen_subcommand_from diff' -l help -d 'display this help and exit'
