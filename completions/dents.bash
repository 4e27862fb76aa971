# bash completion for dents(1): its commands, and each command's options
# as its --help lists them (crates/dents-cli/tests/completions.rs checks
# that every one is offered).  Source it, or copy it to
# /usr/share/bash-completion/completions/dents.

_dents() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local opts
    if [[ $COMP_CWORD -eq 1 ]]; then
        mapfile -t COMPREPLY < <(compgen -W "ls find du scan diff --help --version" -- "$cur")
        return
    fi
    case ${COMP_WORDS[1]} in
    ls)
        opts="--help --version -a --all -A --almost-all -f -i --inode -F --classify
            --file-type -p --indicator-style -C -x -m --format -w
            --width -T --tabsize --color -N --literal -b --escape -Q
            --quote-name --quoting-style -q --hide-control-chars
            --show-control-chars -R --recursive
            --group-directories-first -v -X -1 -U -0 --zero --count
            --sort -t -S -r --reverse -l -g -o -n --numeric-uid-gid -h
            --human-readable --time-style --full-time -d --directory -j
            --threads"
        ;;
    du)
        opts="-0 --null -a --all --apparent-size -B --block-size= -b
            --bytes -c --total -D --dereference-args -d --max-depth=
            --files0-from= -H -h --human-readable --inodes -k -L
            --dereference -l --count-links -m -P --no-dereference -S
            --separate-dirs --si -s --summarize -t --threshold= --time
            --time= --time-style= -X --exclude-from= --exclude= -x
            --one-file-system -o --export= -j --threads= --from= --help
            --version"
        ;;
    scan)
        opts="-o --output= -j --threads= -x --one-file-system -H -L
            --names-only --since= --help"
        ;;
    diff)
        opts="--growth --help"
        ;;
    find)
        case $prev in
        -type | -xtype)
            mapfile -t COMPREPLY < <(compgen -W "b c d p f l s D" -- "$cur")
            return
            ;;
        -S)
            mapfile -t COMPREPLY < <(compgen -W "bfs dfs" -- "$cur")
            return
            ;;
        esac
        opts="-H -L -P -O0 -O1 -O2 -O3 -D -j -S -print -not -a -and -o -or
            -daystart -follow -nowarn -regextype -warn -depth
            -ignore_readdir_race -maxdepth -mindepth -mount
            -noignore_readdir_race -noleaf -xdev -files0-from -amin
            -anewer -atime -cmin -cnewer -ctime -empty -false -gid
            -group -ilname -iname -inum -ipath -iregex -iwholename
            -links -lname -mmin -mtime -name -newer -neweraa -neweraB
            -newerac -neweram -newerat -newerBa -newerBB -newerBc
            -newerBm -newerBt -newerca -newercB -newercc -newercm
            -newerct -newerma -newermB -newermc -newermm -newermt
            -nogroup -nouser -path -perm -regex -readable -writable
            -executable -wholename -size -true -type -uid -used -user
            -xtype -samefile -fstype -context -delete -print0 -prune
            -quit -exec -ok -execdir -okdir -printf -fprintf -ls -fls
            -fprint -fprint0 -s -exclude -hidden -nohidden -limit -color
            -nocolor -status -nostatus --from --help --version"
        ;;
    *)
        return
        ;;
    esac
    # Not an option: leave the word to readline's file names (-o default).
    [[ $cur == -* ]] || return
    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
    # A long option that takes =VALUE: no space after the '='.
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
        compopt -o nospace 2>/dev/null
    fi
}
complete -o default -F _dents dents
